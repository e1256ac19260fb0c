// The solver (atlas/graph/resolve/solver.py): set-up, the rounds over the statements of every scope, statements.
#include <algorithm>

#include "solver.h"

namespace atlas {

void Solver::setup(const std::vector<Id> &module_list,
                   const std::vector<std::pair<Id, std::vector<Id>>> &instance_rules) {
    std::vector<Id> all;  // every module and the packages above it
    for (Id m : module_list) {
        const std::string text = str[m];
        all.push_back(m);
        for (size_t dot = text.find('.'); dot != std::string::npos; dot = text.find('.', dot + 1))
            all.push_back(str.intern(text.substr(0, dot)));
    }
    for (Id m : all) {
        if (modules.get(m))
            continue;
        modules.at(m) = 1;
        const std::string text = str[m];
        for (size_t dot = text.find('.'); dot != std::string::npos; dot = text.find('.', dot + 1))
            submodules[{str.intern(text.substr(0, dot)), str.intern(text.substr(dot + 1))}] = true;
    }
    for (Id id : scope_order) {
        const Scope &s = scope_at(id);
        for (const Stmt &st : s.statements)
            if (st.tag == S_FROM && std::any_of(st.names.begin(), st.names.end(),
                                                [this](const ImportName &n) { return n.name == s_star; }))
                star_modules.at(s.module) = 1;
        const Scope *c = &s;  // the function that calls, for a statement of this scope
        while (c->kind == K_CLASS)
            c = &scope_at(c->parent);
        caller_of.at(id) = c->id;
        Id cls = s_empty;  // the class a method (or a lambda in one) belongs to
        for (const Scope *scope = &s; !str[scope->parent].empty();) {
            const Scope *parent = scope_of(scope->parent);
            if (!parent)
                break;
            if (parent->kind == K_CLASS) {
                cls = parent->id;
                break;
            }
            if (scope->kind == K_LAMBDA || parent->kind != K_MODULE) {
                scope = parent;
                continue;
            }
            break;
        }
        class_of.at(id) = cls;
    }
    for (size_t i = 0; i < by_name.size(); i++)
        by_name_of.at(by_name[i].call) = (int32_t)i;
    ctx = new_ctx(s_empty, 0, s_empty, true);
    for (auto &[attribute, classes] : instance_rules) {
        const std::string &text = str[attribute];
        size_t dot = text.rfind('.');
        Id owner = str.intern(dot == std::string::npos ? "" : text.substr(0, dot));
        Id attr = str.intern(dot == std::string::npos ? text : text.substr(dot + 1));
        VSet vals;
        for (Id c : classes)
            if (scope_of(c))
                add(vals, value(T_R, c));
        write(Key{C_A, owner, attr}, vals);
    }
}

void Solver::solve() {
    // the plan: module and class bodies first, then functions, each in module order (a stable sort of the scopes as
    // `self.scopes` holds them)
    std::vector<const Scope *> order;
    for (Id id : scope_order)
        order.push_back(&scope_at(id));
    std::stable_sort(order.begin(), order.end(), [this](const Scope *a, const Scope *b) {
        bool fa = a->kind != K_MODULE && a->kind != K_CLASS, fb = b->kind != K_MODULE && b->kind != K_CLASS;
        if (fa != fb)
            return fa < fb;
        int by_module = str[a->module].compare(str[b->module]);
        if (by_module != 0)
            return by_module < 0;
        return a->start < b->start;
    });
    struct Step {
        const Scope *scope;
        Id caller;
        const Stmt *stmt;
    };
    std::vector<Step> plan;
    for (const Scope *scope : order)
        for (const Stmt &st : scope->statements)
            plan.push_back(Step{scope, caller_of.get(scope->id), &st});
    stale.assign(plan.size(), 1);
    for (int n = 1; n <= max_rounds; n++) {
        changed = false;
        auto next = [this](size_t from) {
            auto at = std::find(stale.begin() + (ptrdiff_t)from, stale.end(), (uint8_t)1);
            return (size_t)(at - stale.begin());
        };
        for (size_t i = next(0); i < plan.size(); i = next(i + 1)) {
            stale[i] = 0;
            reader = (uint32_t)i;
            statement(*plan[i].scope, plan[i].caller, *plan[i].stmt);
            num_evaluated++;
        }
        rounds = n;
        if (!changed)
            break;
    }
    dispatch_by_name();
}

void Solver::statement(const Scope &scope, Id caller, const Stmt &stmt) {
    switch (stmt.tag) {
    case S_ASSIGN:
        ctx = new_ctx(scope.id, stmt.idx, caller, stmt.strong);
        for (const Expr *target : stmt.targets->items)
            assign_expr(target, stmt.x);
        if (!stmt.annotations.empty()) {
            VSet instances = annotation(stmt.annotations);
            for (const Expr *target : stmt.targets->items)
                assign(target, instances, 0);
        }
        break;
    case S_E:
        ctx = new_ctx(scope.id, stmt.idx, caller, stmt.strong);
        eval(stmt.x);
        break;
    case S_RET:
    case S_Y: {
        ctx = new_ctx(scope.id, (int64_t)1 << 30, caller, false);
        VSet vals = eval(stmt.x);
        write(Key{stmt.tag == S_RET ? C_RET : C_Y, scope.id, NO}, vals);
        break;
    }
    case S_DEF:
        ctx = new_ctx(scope.id, stmt.idx, caller, stmt.strong);
        define(scope, stmt.a, stmt.b);
        break;
    case S_CLS:
        ctx = new_ctx(scope.id, stmt.idx, caller, stmt.strong);
        define_class(scope, stmt.a, stmt.b);
        break;
    case S_FOR:
        ctx = new_ctx(scope.id, stmt.idx, caller, false);
        assign(stmt.x, iterate(eval(stmt.y)), 0);
        break;
    case S_IMP: {
        ctx = new_ctx(scope.id, stmt.idx, caller, stmt.strong);
        const std::string &mod = str[stmt.a];
        Id head = str.intern(mod.substr(0, mod.find('.')));
        bool aliased = stmt.b != NO && !str[stmt.b].empty();
        assign_name(aliased ? stmt.b : head, one(module_value(aliased ? stmt.a : head)));
        break;
    }
    case S_FROM:
        ctx = new_ctx(scope.id, stmt.idx, caller, stmt.strong);
        import_from(scope, stmt.a, stmt.names);
        break;
    case S_RAISE:
        ctx = new_ctx(scope.id, stmt.idx, caller, false);
        for (Id v : eval(stmt.x))
            if (values[v].tag == T_C)
                construct(values[v].a, empty_args, empty_args, stmt.x, nullptr);
        break;
    }
}

void Solver::import_from(const Scope &scope, Id mod, const Span<ImportName> &names) {
    bool internal = modules.get(mod);
    for (const ImportName &imported : names) {
        Id name = imported.name, alias = imported.alias;
        if (name == s_star) {
            if (internal) {
                auto &list = stars[scope.module];
                if (std::find(list.begin(), list.end(), mod) == list.end()) {
                    list.push_back(mod);
                    mark(Key{C_STARS, scope.module, NO});
                    changed = true;
                }
            }
            continue;
        }
        VSet vals;
        if (internal) {
            vals = module_attr(mod, name);
            const Scope *target = scope_of(mod);
            if (vals.empty() && (!target || !target->is_local(name)) && !star_modules.get(mod))
                vals = one(value(T_X, joined(mod, ".", name)));  // not defined in Python: a compiled extension, say
        } else {
            vals = one(value(T_X, joined(mod, ".", name)));
        }
        assign_name(alias != NO && !str[alias].empty() ? alias : name, vals);
    }
}

Id Solver::module_value(Id name) { return value(modules.get(name) ? T_M : T_X, name); }

}  // namespace atlas
