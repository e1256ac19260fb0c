from hand import anchor, ev, save
# suggestions that resolved but were too loose or chose the wrong path, replaced after the fill-back rule
anchor("vllm/prefill-attention.yaml", "vllm.prefill-attention.flash-attn-forward", ["cpu", "latest"],
       pattern="_FA4_DENSE_ATTENTION_KERNEL(..., causal=causal)")
ev("vllm/prefill-attention.yaml", "vllm.prefill-attention.flash-attn-forward", "causal-varlen-kernel", 1,
   ["cpu", "latest"], pattern="_FA4_DENSE_ATTENTION_KERNEL(..., causal=causal)")
anchor("sglang/continuous-batching.yaml", "sglang.continuous-batching.new-batch-prefill", ["latest"],
       pattern="adder = self.get_prefill_adder_class()(...)")
ev("sglang/continuous-batching.yaml", "sglang.continuous-batching.new-batch-prefill", "policy-then-adder", 2,
   ["latest"], pattern="adder = self.get_prefill_adder_class()(...)")
T = "sglang.chunked-prefill.truncate-to-chunk"
anchor("sglang/chunked-prefill.yaml", T, ["latest"],
       symbol="sglang.srt.managers.schedule_policy.PrefillAdder._commit_prefill_admission",
       pattern="self.new_chunked_req = req")
ev("sglang/chunked-prefill.yaml", T, "chunk-page-aligned", 3, ["latest"],
   symbol="sglang.srt.managers.schedule_policy.PrefillAdder._commit_prefill_admission")
save()
from hand import verdict
verdict("vllm/prefill-attention.yaml", "vllm.prefill-attention.flash-attn-forward", "causal-varlen-kernel",
        ["cpu", "latest"], "changed",
        "FlashAttentionImpl.forward now calls the FA4 dense attention kernel (_FA4_DENSE_ATTENTION_KERNEL, an "
        "FA4DenseAttentionKernel) with causal=causal over the paged block table; flash_attn_varlen_func with a "
        "block table remains only in the decode-context-parallel path (_forward_with_dcp).")
save()
