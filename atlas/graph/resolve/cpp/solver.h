// The call resolver in C++ (the extension atlas.graph.resolve._solve): the same abstract interpreter as the Python
// resolver of atlas/graph/resolve (read its module docstrings for the model), over the same IR, giving the same edges,
// call sites and bases. Each method mirrors the Python method of the same name, in the same order of evaluation; the
// files mirror the Python modules (cells, names, values, summaries, calls, bindings, solver; module.cpp reads the
// facts in and writes the results out). tests/graph/test_native_solve.py checks that both give the same on whole
// pinned trees. A change to one is a change to both. PyCG mode (`pycg=True`) is only in Python.
//
// Strings are interned to ids, values (the Python value tuples) to ids, sets of values are sorted vectors. Python
// sets hold one of each equal value, and ("k", 0) == ("k", False) == ("k", 0.0): constants have a canonical form
// for equality and keep the representative first put in a set, as Python's sets do.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "containers.h"

namespace atlas {

using Id = uint32_t;
constexpr Id NO = 0xffffffffu;  // no string, value or node (Python's None)

// -- interned strings ----------------------------------------------------------------------------------------------
struct Strings {
    std::deque<std::string> text;  // (a deque: a reference to one stays good while others are added)
    std::vector<uint64_t> hashes;
    std::vector<uint32_t> slots;  // id + 1, 0 empty
    Id intern(std::string_view s);
    const std::string &operator[](Id id) const { return text[id]; }
    uint32_t size() const { return (uint32_t)text.size(); }
};

// -- constants: ("k", c) payloads and container slot keys ------------------------------------------------------------
enum class ConstKind : uint8_t { None, Bool, Int, Float, Str, BigInt };
struct Const {
    ConstKind kind;
    int64_t number;  // Bool, Int; Float: its bits
    Id text;         // Str; BigInt: its decimal text
    bool operator==(const Const &o) const { return kind == o.kind && number == o.number && text == o.text; }
};
struct ConstHash {
    size_t operator()(const Const &c) const {
        return mix((uint64_t)c.number * 31 + ((uint64_t)c.text << 8) + (size_t)c.kind);
    }
};

// -- values ------------------------------------------------------------------------------------------------------
enum Tag : uint8_t { T_F, T_BM, T_C, T_I, T_R, T_M, T_X, T_XR, T_B, T_BT, T_K, T_O, T_G, T_SUP, T_PROP, T_PR, T_UPD,
                     T_PUT, T_COUNT };
struct Value {
    Tag tag;
    Id a;  // the id / name / alloc / library; K: the constant
    Id b;  // BM: the receiver (a value, or NO); PR: the parameter; PUT: the method name
    bool operator==(const Value &o) const { return tag == o.tag && a == o.a && b == o.b; }
};
struct ValueHash {
    size_t operator()(const Value &v) const { return mix(((uint64_t)v.a << 32 | v.b) * 31 + v.tag); }
};

// A set of values: value ids sorted by their canonical id, one per canonical id (the first one added stays).
using VSet = SmallVec<Id, 3>;

// -- the IR (atlas.parse.python.facts), read from the facts' tuples -------------------------------------------------
enum ETag : uint8_t { E_N, E_A, E_C, E_S, E_SL, E_K, E_L, E_D, E_LAM, E_U, E_IT, E_STAR, E_TYPE, E_T, E_UNKNOWN,
                      E_PAIR, E_OTHER };
struct Expr;
struct Args {  // a tuple of arguments (or of list items, pairs, targets)
    Span<const Expr *> items;
    uint64_t identity = 0;  // which Python tuple it is (`memo[0] is args`)
};
struct Site {
    int64_t line;
    Id text;
};
struct Expr {
    ETag tag;
    Id s = NO;  // N: name; A: attribute; L, D: alloc; LAM: scope; K: constant; S (target): -
    const Expr *x = nullptr, *y = nullptr, *z = nullptr;  // A, S, SL, IT, STAR, TYPE: operands; PAIR: key, value
    const Args *items = nullptr;  // C: positional args; L: items; D: pairs; U: operands; T: targets
    const Args *kwargs = nullptr;  // C: (name | NO, expr) as PAIR exprs whose s is the name
    Site site{0, NO};  // C
};

struct Param {
    Id name;
    const Expr *deflt;               // or nullptr
    Span<const Expr *> annotation;  // type exprs (E_TYPE for type[X])
    uint8_t kind;                    // 0 "", 1 "*", 2 "**"
};

enum STag : uint8_t { S_ASSIGN, S_E, S_RET, S_Y, S_FOR, S_RAISE, S_IMP, S_FROM, S_DEF, S_CLS };
struct ImportName {
    Id name, alias;  // alias: NO for None
};
struct Stmt {
    STag tag;
    const Args *targets = nullptr;   // ASSIGN: targets
    const Expr *x = nullptr;         // the expression (value, iterable, target of FOR)
    const Expr *y = nullptr;         // FOR: the iterable
    Span<const Expr *> annotations;  // ASSIGN
    int64_t idx = 0;
    bool strong = false;
    Id a = NO, b = NO;        // IMP: module, alias; FROM: module; DEF/CLS: scope id, name
    Span<ImportName> names;  // FROM
};

enum Kind : uint8_t { K_MODULE, K_CLASS, K_FUNCTION, K_LAMBDA };
bool has(const Span<Id> &sorted, Id id);  // binary search

struct Scope {
    Id id, parent, module;
    Kind kind;
    int64_t start;
    Span<Param> params;
    Span<const Expr *> decorators;
    Span<const Expr *> bases;
    Span<const Expr *> returns;
    bool is_generator;
    Span<Id> local_names, global_names;  // sorted
    Span<Stmt> statements;
    bool is_static = false, is_classmethod = false, is_property = false;  // from decorator_names
    bool is_kernel_decorated = false;  // a decorator named jit / autotune / heuristics (a LAUNCH through it)
    bool is_local(Id name) const { return has(local_names, name); }
    bool is_global(Id name) const { return has(global_names, name); }
};

// -- cells --------------------------------------------------------------------------------------------------------
enum KTag : uint8_t { C_V, C_A, C_S, C_RET, C_Y, C_B, C_SLOTS, C_STARS, C_SUBS, C_PR };
struct Key {
    KTag tag;
    Id a;
    Id b;  // V, A: the name; S: the slot key (a constant, canonical)
    bool operator==(const Key &o) const { return tag == o.tag && a == o.a && b == o.b; }
};
struct KeyHash {
    size_t operator()(const Key &k) const { return mix(((uint64_t)k.a << 32 | k.b) * 31 + k.tag); }
};
struct Writer {  // one entry of a cell's `writers`
    Id scope;
    int64_t idx;
    bool strong;
    uint32_t next;  // the cell's next writer (in the order first written), NO at the last
    VSet values;
};
struct StrongAt {
    Id scope;
    int64_t idx;
};
struct Cell {
    bool written = false;      // `writers is not None`
    bool flow = false;
    bool has_readers = false;  // `readers is not None`
    uint32_t first = NO, last = NO, num_writers = 0;  // its writers (Solver::writers)
    VSet unioned;              // `union`
    SmallVec<StrongAt, 1> strong;  // `strong` (None when empty: a strong write is never undone)
    SmallVec<uint32_t, 2> readers;
};
struct WriterKey {
    const Cell *cell;
    Id scope;
    int64_t idx;
    bool strong;
    bool operator==(const WriterKey &o) const {
        return cell == o.cell && scope == o.scope && idx == o.idx && strong == o.strong;
    }
};
struct WriterKeyHash {
    size_t operator()(const WriterKey &k) const {
        return mix((uint64_t)(uintptr_t)k.cell * 31 + ((uint64_t)k.scope << 1 | k.strong) * 1000003u + (uint64_t)k.idx);
    }
};

struct Ctx {
    Id scope;
    int64_t idx;
    Id caller;
    bool strong;
    uint64_t serial;  // which Python tuple it is: `memo[2] is self.ctx`
};

enum Prov : uint8_t { P_STATIC, P_LAUNCH, P_TYPE_INFERRED, P_STRING_DISPATCH, P_DISPATCH, P_NONE };

struct MroEntry {
    Id name;
    uint8_t what;  // W_CLASS, W_PLAIN, W_EXTERNAL, W_BUILTIN
};
enum { W_CLASS, W_PLAIN, W_EXTERNAL, W_BUILTIN };
struct Mro {
    std::vector<Id> mro;       // class ids and "x:..." / "b:..." entries
    std::vector<Id> internal;  // the class entries
    std::vector<MroEntry> walk;
};

struct ByName {
    Id call, argument;
    std::vector<Id> classes;
};

struct EdgeKey {
    Id caller, callee;
    bool operator==(const EdgeKey &o) const { return caller == o.caller && callee == o.callee; }
};
struct EdgeKeyHash {
    size_t operator()(const EdgeKey &k) const { return mix((uint64_t)k.caller << 32 | k.callee); }
};
struct LineProv {
    int64_t line;
    Prov prov;
};
using Lines = SmallVec<LineProv, 1>;
struct SiteKey {
    Id caller;
    int64_t line;
    Id text;
    bool operator==(const SiteKey &o) const { return caller == o.caller && line == o.line && text == o.text; }
};
struct SiteKeyHash {
    size_t operator()(const SiteKey &k) const {
        return mix(((uint64_t)k.caller << 32 | k.text) * 31 + (uint64_t)k.line);
    }
};
struct PairHash {
    size_t operator()(const std::pair<Id, Id> &p) const { return mix((uint64_t)p.first << 32 | p.second); }
};

struct NamedCall {
    Id caller;
    int64_t line;
    Id method;
    size_t rule;
    bool operator==(const NamedCall &o) const {
        return caller == o.caller && line == o.line && method == o.method && rule == o.rule;
    }
};
struct NamedCallHash {
    size_t operator()(const NamedCall &k) const { return (size_t)k.caller * 1000003u ^ (size_t)k.line ^ k.method; }
};

// The values of a call's arguments (eval_args); shared: the memo and its users hold the same.
struct ArgVals {
    std::vector<VSet> vals;
    std::vector<std::pair<Id, VSet>> kvals;
};
using ArgRef = std::shared_ptr<const ArgVals>;
// What eval_args remembers: the last evaluation of one argument tuple pair in one context.
struct ArgMemo {
    bool set = false;
    uint64_t args = 0, kwargs = 0, ctx = 0;  // identities
    ArgRef result;
};

struct Solver {
    // -- set up by module.cpp --------------------------------------------------------------------------------------
    Strings str;
    Arena arena;                   // the IR
    std::vector<Value> values;
    std::vector<Id> canon;  // value id -> the id of its canonical form
    Table<Value, Id, ValueHash> value_ids;
    std::deque<Const> consts;  // (references to one stay good while others are added)
    std::vector<Id> const_canon;
    Table<Const, Id, ConstHash> const_ids;
    Chunked<Scope> scope_list;  // every scope in file order (duplicates included)
    IdVec<Scope *> scopes{nullptr};  // id -> the last scope of that id (as `self.scopes`)
    std::vector<Id> scope_order;  // ids in the order `self.scopes` holds them (first insertion)
    IdVec<uint8_t> modules{0};
    Table<std::pair<Id, Id>, bool, PairHash> submodules;  // (module, dotted name under it that is a module)
    IdVec<uint8_t> star_modules{0};
    IdVec<Id> caller_of{NO}, class_of{NO};
    IdVec<uint8_t> builtins{0};
    IdVec<int32_t> pr_function{-1};  // function -> index into pr_params
    std::vector<std::vector<Id>> pr_params;  // sorted
    std::vector<ByName> by_name;
    IdVec<int32_t> by_name_of{-1};  // method name -> its rule
    int max_rounds = 30;
    size_t cap = 48;

    // -- state ---------------------------------------------------------------------------------------------------
    Table<Key, Cell, KeyHash> cells;
    Chunked<Writer> writers;
    Table<WriterKey, uint32_t, WriterKeyHash> writer_of;
    std::unordered_map<Id, std::vector<std::vector<Id>>> bases;
    Chunked<Mro> mros;
    IdVec<Mro *> mro_memo{nullptr};
    IdVec<std::vector<Id>> mro_users;
    IdVec<std::vector<Id>> direct_subclasses;  // insertion-ordered sets
    IdVec<uint8_t> kernel_functions{0};
    std::unordered_map<Id, std::vector<Id>> stars;
    IdVec<uint8_t> kinds{0};  // alloc -> 0 list, 1 dict
    IdVec<std::vector<Id>> slot_keys;  // alloc -> its slot keys (constants), in the order made
    Table<EdgeKey, Lines, EdgeKeyHash> edges;
    Table<SiteKey, int, SiteKeyHash> sites;
    int rounds = 0;
    bool changed = false;
    uint64_t num_changes = 0;
    std::vector<uint8_t> stale;
    uint32_t reader = 0;
    uint64_t num_evaluated = 0;
    IdVec<uint64_t> mro_read{UINT64_MAX};
    Ctx ctx{NO, 0, NO, true, 0};
    uint64_t ctx_serial = 0;
    std::unordered_set<NamedCall, NamedCallHash> named_calls;
    std::unordered_map<Id, std::unordered_set<Id>> pr_holders;
    ArgMemo arg_memo;
    uint64_t num_args = 0;  // identities given to argument tuples so far
    std::unordered_map<const Expr *, const Expr *> middles;  // a starred assignment's middle, per value
    std::unordered_map<Id, const Expr *> method_names;  // ("n", method) expressions
    const Args *empty_args = nullptr;  // the tuple () (one object in Python)

    // ids of strings the resolver names
    Id k_star;  // the constant "*" (a slot key)
    Id s_star, s_self, s_cls, s_super, s_init, s_call, s_getitem, s_iter, s_next, s_forward, s_update, s_append,
        s_insert, s_extend, s_empty, s_triton;

    // -- values and sets (values.cpp) ------------------------------------------------------------------------------
    Id value(Tag tag, Id a, Id b = NO);
    Id konst(const Const &c);
    Id text_const(Id text) { return text == s_star && k_star != NO ? k_star : konst(Const{ConstKind::Str, 0, text}); }
    Id int_const(int64_t n) { return konst(Const{ConstKind::Int, n, NO}); }
    bool add(VSet &s, Id value) const;
    void merge(VSet &into, const VSet &from) const;
    bool subset(const VSet &a, const VSet &b) const;
    VSet one(Id value) const { return VSet{value}; }

    Ctx new_ctx(Id scope, int64_t idx, Id caller, bool strong) { return Ctx{scope, idx, caller, strong, ++ctx_serial}; }

    // -- cells.cpp -----------------------------------------------------------------------------------------------
    void depend(const Key &key) { watch(key); }
    Cell &watch(const Key &key);
    void write(const Key &key, const VSet &vals, bool strong = false);
    void write_cell(const Key &key, Cell &cell, const VSet &vals, bool strong);
    Key slot(Id alloc, Id key) const { return Key{C_S, alloc, const_canon[key]}; }  // ("s", alloc, key)
    void write_slot(Id alloc, Id key, const VSet &vals, bool strong = false);  // key: the constant as made
    void mark(const Key &key, Cell *cell = nullptr);
    VSet read(const Key &key, bool local = true);

    // -- names.cpp -----------------------------------------------------------------------------------------------
    VSet lookup(Id name);
    VSet module_attr(Id module, Id name, bool local = false, std::vector<Id> *seen = nullptr);
    const std::vector<Id> &mro(Id cls) { return mro_walk(cls).mro; }
    const Mro &mro_walk(Id cls);
    VSet class_attr(Id cls, Id name, Id receiver, Id start_after = NO, std::vector<Cell *> *cells = nullptr);
    VSet subclass_methods(Id cls, Id name);
    Id bind_attr(Id value, Id receiver, Id cls);
    VSet getattr(const VSet &vals, Id name);
    VSet resolve_props(const VSet &vals);

    // -- values.cpp ----------------------------------------------------------------------------------------------
    VSet eval(const Expr *e);
    VSet literal(const Expr *e);
    VSet dict_literal(const Expr *e);
    void copy_slots(const VSet &vals, Id alloc);
    SmallVec<Id, 4> slots(Id alloc);
    VSet subscript(const VSet &vals, const Expr *key_expr);
    VSet slice(const Expr *e);
    VSet iterate(const VSet &vals);
    VSet call_value(Id receiver, Id method, const Expr *arg_expr);

    // -- summaries.cpp -------------------------------------------------------------------------------------------
    Id param_call(Id name);
    VSet param_results(Id v);
    VSet concrete(const VSet &vals);
    VSet call_results(const VSet &vals);
    VSet instantiate(const VSet &vals, Id fid, const std::unordered_map<Id, VSet> &bound, Id tag, int depth = 0);
    void note_pr(Id alloc, const VSet &vals);
    bool holds_pr(Id alloc, const std::unordered_set<Id> &holders);

    // -- calls.cpp -----------------------------------------------------------------------------------------------
    VSet call_expr(const Expr *e);
    void edge(Id callee, const Site *site, const Expr *fexpr, Prov prov = P_NONE);
    VSet invoke(Id v, const Args *args, const Args *kwargs, const Site *site, const Expr *fexpr);
    VSet new_list(Id name, const Site *site, const VSet &elements);
    VSet elements(const std::vector<VSet> &vals, int how, const Args *args);
    ArgRef eval_args(const Args *args, const Args *kwargs);
    VSet call_function(Id fid, Id receiver, const Args *args, const Args *kwargs, const Site *site, const Expr *fexpr,
                       Prov prov = P_NONE);
    VSet returns(Id fid);
    VSet construct(Id cls, const Args *args, const Args *kwargs, const Expr *fexpr, const Site *site);
    VSet call_builtin(Id name, const Args *args, const Args *kwargs, const Site *site, const Expr *fexpr);
    Id site_alloc(const std::string &name, const Site *site, const char *suffix = "");

    // -- bindings.cpp --------------------------------------------------------------------------------------------
    void assign_expr(const Expr *target, const Expr *value);
    void assign(const Expr *target, const VSet &vals, int strong = -1);
    void assign_name(Id name, const VSet &vals) {  // self.assign(("n", name), values)
        Expr target{};
        target.tag = E_N;
        target.s = name;
        assign(&target, vals);
    }
    VSet annotation(const Span<const Expr *> &exprs);
    void define(const Scope &parent, Id fid, Id name);
    VSet invoke_with_values(Id callee, const VSet &vals, const Expr *fexpr);
    void define_class(const Scope &parent, Id cid, Id name);
    void note_named_call(size_t rule, const Args *args, const Args *kwargs, const Site *site);
    void dispatch_by_name();

    // -- solver.cpp ----------------------------------------------------------------------------------------------
    void setup(const std::vector<Id> &module_list, const std::vector<std::pair<Id, std::vector<Id>>> &instance_rules);
    void solve();
    void statement(const Scope &scope, Id caller, const Stmt &stmt);
    void import_from(const Scope &scope, Id mod, const Span<ImportName> &names);
    Id module_value(Id name);
    Scope *scope_of(Id id) const { return scopes.get(id); }
    Scope &scope_at(Id id) const {  // `self.scopes[id]`: a KeyError in Python, an error here too
        Scope *scope = scopes.get(id);
        if (!scope)
            throw std::out_of_range("no scope " + str[id]);
        return *scope;
    }
    Table<std::pair<Id, Id>, Id, PairHash> dotted;  // (a, b) -> "a.b"
    Table<std::pair<Id, Id>, Id, PairHash> prefixed;  // (prefix, name) -> prefix + name
    Id prefix(const char *text, Id name) {  // "<builtin>." + name, "<**PyStr**>." + name, ...
        bool made;
        Id &id = prefixed.get({str.intern(text), name}, &made);
        return made ? id = str.intern(std::string(text) + str[name]) : id;
    }
    Id joined(Id a, const char *sep, Id b) {
        if (sep[0] != '.' || sep[1])
            return str.intern(str[a] + sep + str[b]);
        bool made;
        Id &id = dotted.get({a, b}, &made);
        return made ? id = str.intern(str[a] + "." + str[b]) : id;
    }
};

std::vector<Id> linearize(Id cls, const std::unordered_map<Id, std::vector<std::vector<Id>>> &bases,
                          const Strings &str, std::vector<Id> &active);

template <typename T>
Span<T> copy_to(Arena &arena, const std::vector<T> &items) {
    Span<T> out{items.empty() ? nullptr : arena.alloc<T>(items.size()), (uint32_t)items.size()};
    for (size_t i = 0; i < items.size(); i++)
        out.data[i] = items[i];
    return out;
}

}  // namespace atlas
