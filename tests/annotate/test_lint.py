"""The guards on the YAML itself (atlas.annotate.lint): flow lists split at a comma inside an item, roles outside
annotations/README.md's role table, evidence notes citing code their lines do not contain; on small YAML of our
own, on the lines the annotations were authored with, and on the real annotations."""

from pathlib import Path

import pytest
from annotate.folder_index import FolderIndex
from annotate.test_loader import GOOD, write

from atlas.annotate import check, load_annotations, load_checked
from atlas.annotate.lint import role_findings, role_table, split_items, unbalanced
from atlas.model import Pin
from atlas.yamlio import _yaml

PROJECT = Path(__file__).resolve().parents[2]

# The contract lines as the annotations were first authored: each loads as more items than it was written with.
AUTHORED = [
    "writes: [one prefill-only request per prompt, then parallel_sample_num requests with fresh rids]",
    "invariants: [a request is in exactly one of waiting_queue, running_batch, the in-flight batch or finished]",
    "invariants: [check_decode_mem ran first, so the allocation cannot fail]",
    "input: [--cuda-graph-config JSON and the legacy flags (--disable-cuda-graph, --cuda-graph-max-bs-*, '...)']",
    "writes: [static buffers (input_ids, positions, seq_lens, out_cache_loc ...), self.bs, self.raw_bs, "
    "self.raw_num_token]",
    "invariants: [whichever path runs, the result has the same semantics]",
    "invariants: [all DP ranks reach the same decision, or their collectives mismatch]",
    "invariants: [all DP ranks take the same replay-vs-eager decision, or their collectives mismatch]",
    "reads: [is_disable_overlap_for_batch(batch, last_batch)]",
    "input: [req_pool_indices as future indices, RelayPayload (bonus tokens, draft state), new seq lens]",
    "invariants: [at least one request is kept; if even one cannot fit it is aborted, not crashed]",
    "input: [set by ScheduleBatch.prepare_for_extend / prepare_for_decode / mix_with_running, or by a spec worker]",
    "input: [ForwardBatch (mode, seq_lens, extend lengths, req_pool_indices, spec_info)]",
    "invariants: [metadata is planned once per forward, then reused by every layer]",
    "input: [RadixKey(token_ids, extra_key, limit) built by Req.init_next_round_input or match_prefix_for_req]",
    "input: [InsertParams(key, value=KV indices, priority, chunked)]",
    "input: [verify_input (draft tree, retrieve indices), batch.sampling_info, target logits for every node]",
    "input: [GenerationBatchResult (accept_lens, next_token_ids, num_correct_drafts_per_req_cpu)]",
    "input: [prompt, BeamSearchParams (beam_width, max_tokens, length_penalty, temperature)]",
    "input: [instances_batch (beams per prompt), base_sampling_params (max_tokens=1, logprobs=2*beam_width)]",
    "invariants: [the cache_salt of the original prompt is kept, so beams share cache only within the same salt]",
    "writes: [num_scheduled_tokens per request, req_to_new_blocks, self.running (admissions, preemptions)]",
    "invariants: [results are matched back to this snapshot by request id, not by batch position]",
    "input: [forward context (batch_descriptor, cudagraph_runtime_mode), stable input buffers]",
    "input: [the SchedulerOutput of the step, ModelRunnerOutput (sampled token ids, logprobs, draft acceptance)]",
    "input: [CommonAttentionMetadata (query_start_loc, seq_lens, block_table_tensor, slot_mapping, causal)]",
    "invariants: [query i of a sequence sees keys 0..i only (causal), computed tile by tile]",
    "input: [request (lora_request, mm features, cache_salt, prompt_embeds), block token range]",
    "invariants: [a block handed out has ref_cnt 1; a cached block is evicted lazily, at reuse]",
    "input: [blocks of a finished or preempted request, in eviction order]",
    "writes: [a partial hash entry owned by an existing block (no new block, no copy)]",
    "invariants: [drafts are proposals, never user-visible truth]",
    "input: [SpecDecodeMetadata (draft ids, cu_num_draft_tokens, bonus/target logits indices), "
    "draft_probs (None for NGRAM), logits]",
    "input: [SpecDecodingStats (num_drafts, num_draft_tokens, num_accepted_tokens, per position)]",
]

FINE = [
    "input: [request, num_new_tokens, cached blocks from get_computed_blocks]",
    'input: ["request (lora_request, mm features, cache_salt, prompt_embeds)", block token range]',
    "writes: [block.ref_cnt += 1, free_block_queue (block removed)]",
    "input: [parent_block_hash (None for the first block), curr_block_token_ids (a full block), extra_keys]",
    "invariants: [two requests with different cache_salt never share a cached block]",
    'invariants: ["drafts are proposals, never user-visible truth"]',
    "reads: [SGLang's tree_cache, the request's prefix]",
]


def split(line: str) -> list:
    return list(split_items(_yaml().load(f"contract:\n  {line}\n"), "a.yaml"))


@pytest.mark.parametrize("line", AUTHORED)
def test_every_authored_split_list_is_flagged(line):
    (finding,) = split(line)
    assert finding.kind == "split-flow-item" and finding.where == "a.yaml:2"
    assert "quote each item that holds a comma" in finding.message


@pytest.mark.parametrize("line", FINE)
def test_lists_whose_items_are_whole_are_not_flagged(line):
    assert split(line) == []


@pytest.mark.parametrize(
    ("text", "open_"),
    [("f(a", "("), ("b)", ")"), ("x[0", "["), ('say "hi', '"'), ("`code", "`"), ("it's fine", ""), ("'quoted", "'")],
)
def test_unbalanced_names_the_bracket_or_quote_left_open(text, open_):
    assert unbalanced(text) == open_


def test_the_real_annotations_have_no_split_list():
    _, lints = load_checked(PROJECT)
    assert [f"{f.where}: {f.message}" for f in lints] == []


def test_the_loader_reports_split_lists_as_findings_not_problems(tmp_path):
    write(tmp_path, "vllm/a.yaml", GOOD.replace("input: [a request]", "input: [request (lora_request, mm), range]"))
    annotations, lints = load_checked(tmp_path)
    assert len(annotations) == 1 and [(f.kind, f.where) for f in lints] == [
        ("split-flow-item", "annotations/vllm/a.yaml:11")
    ]


README = """\
### Roles: plan -> allocate -> execute -> validate -> commit -> release

| role | the code... |
|---|---|
| `plan` | decides what runs |
| `allocate` | reserves |
| `execute` | launches |
| `commit` | makes results truth |
| `release` | returns resources |

### Contract
| `validate` | not in the role table: under another heading |
"""


def test_a_role_without_a_row_in_the_table_is_flagged(tmp_path):
    write(tmp_path, "vllm/a.yaml", GOOD.replace("role: release", "role: validate"))
    annotations = load_annotations(tmp_path)
    assert list(role_table(README)) == ["plan", "allocate", "execute", "commit", "release"]
    found = [(f.kind, f.where) for f in role_findings(annotations, README)]
    assert found == [("role-undescribed", "annotations/README.md"), ("role-outside-table", "annotations/vllm/a.yaml:8")]


def test_the_real_role_table_describes_every_role_the_annotations_use():
    readme = (PROJECT / "annotations" / "README.md").read_text(encoding="utf-8")
    assert [f.message for f in role_findings(load_annotations(PROJECT), readme)] == []


SCHED = "class Scheduler:\n    def preempt(self, req):\n        self.free(req)\n        req.reset()\n"


@pytest.mark.parametrize(
    ("note", "cites"),
    [
        ("`self.free(req)` frees", []),
        ("`self.free(...)` frees", []),
        ("`self.free(r...` frees", []),
        ("`req.reset()` resets", ["req.reset()"]),
        ("`self.free(...).reset` frees", ["self.free(...).reset"]),
    ],
)
def test_an_evidence_note_must_cite_code_its_lines_contain(tmp_path, note, cites):
    text = GOOD.replace(
        '          - pattern: "self.free(...)"\n',
        f'          - pattern: "self.free(...)"\n            note: "{note}"\n',
    )
    write(tmp_path, "vllm/a.yaml", text)
    (tmp_path / "repo" / "pkg").mkdir(parents=True)
    (tmp_path / "repo" / "pkg" / "sched.py").write_text(SCHED)
    index = FolderIndex(tmp_path / "repo", Pin("vllm", "default", "c" * 40, "u"))
    report = check(load_annotations(tmp_path), index)
    found = [f for f in report.findings if f.kind == "citation-not-found"]
    assert [f.where for f in found] == ["annotations/vllm/a.yaml:20"] * len(cites)
    assert all(f"`{c}`" in f.message and "pkg/sched.py:3-3" in f.message for f, c in zip(found, cites))
