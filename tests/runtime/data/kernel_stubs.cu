// Declarations of kernels of the pinned trees (vLLM v0.26.0 csrc/libtorch_stable/, SGLang v0.5.17
// python/sglang/kernels/jit/csrc/elementwise/): each with the namespace, name and template parameters the tree gives
// it, empty bodies, instantiated with the bf16 types the engines use. Compiled only to read the symbols nvcc gives
// them (the names CUPTI reports, mangled):
//   nvcc -std=c++17 -cubin -arch=sm_90 kernel_stubs.cu -o stubs.cubin && readelf -sW stubs.cubin | grep FUNC
// (CUDA 13.0); the output is the "CUPTI activity record (mangled)" rows of kernel_names.json.
#include <cuda_bf16.h>
#include <cstdint>
#include <type_traits>
namespace c10 { struct BFloat16 { unsigned short x; }; }
namespace vllm {
enum class Fp8KVCacheDataType { kAuto = 0, kFp8E4M3 = 1, kFp8E5M2 = 2 };
template <typename T> struct _typeConvert { static constexpr bool exists = true; };
template <typename scalar_t, typename cache_t, Fp8KVCacheDataType kv_dt>
__global__ void reshape_and_cache_flash_kernel(const scalar_t* __restrict__ key, const scalar_t* __restrict__ value,
    cache_t* __restrict__ key_cache, cache_t* __restrict__ value_cache, const int64_t* __restrict__ slot_mapping,
    const int64_t block_stride, const int64_t page_stride, const int64_t head_stride, const int64_t key_stride,
    const int64_t value_stride, const int num_heads, const int head_size, const int block_size, const float* k_scale,
    const float* v_scale, const int kv_scale_stride) {}
template <typename scalar_t, int VEC_SIZE, int NUM_DIMS, bool HasWeight>
__global__ void rms_norm_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input,
    const int64_t input_stride_d2, const int64_t input_stride_d3, const int64_t input_stride_d4,
    const int64_t input_shape_d2, const int64_t input_shape_d3, const scalar_t* __restrict__ weight,
    const float epsilon, const int num_tokens, const int hidden_size) {}
template <typename scalar_t, int width, bool HasWeight>
__global__ std::enable_if_t<(width > 0) && _typeConvert<scalar_t>::exists>
fused_add_rms_norm_kernel(scalar_t* __restrict__ input, const int64_t input_stride, scalar_t* __restrict__ residual,
    const int64_t residual_stride, const scalar_t* __restrict__ weight, const float epsilon, const int num_tokens,
    const int hidden_size) {}
template <typename scalar_t, typename cache_t, bool IS_NEOX>
__global__ void rotary_embedding_kernel(const int64_t* __restrict__ positions, scalar_t* __restrict__ query,
    scalar_t* __restrict__ key, const cache_t* __restrict__ cos_sin_cache, const int rot_dim,
    const int64_t query_stride, const int64_t key_stride, const int64_t head_stride, const int num_heads,
    const int num_kv_heads, const int head_size) {}
template <typename T> __device__ __forceinline__ T silu_kernel(const T& x, const float) { return x; }
template <typename T> __device__ __forceinline__ T packed_silu_kernel(const T& x, const float) { return x; }
template <typename scalar_t, typename packed_t, scalar_t (*ACT_FN)(const scalar_t&, const float),
          packed_t (*PACKED_ACT_FN)(const packed_t&, const float), bool act_first, bool use_vec, bool HAS_CLAMP,
          bool use_256b = false>
__global__ void act_and_mul_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input, const int d,
    const float limit, const float alpha, const float beta) {}
}  // namespace vllm
namespace {
struct StoreKVCacheParams { void* p; };
struct ActivationParams { void* p; };
enum class ActivationKind { kSilu = 0, kGelu = 1 };
template <int64_t kKElementBytes, int64_t kVElementBytes, int kSplit, bool kUsePDL, typename T>
__global__ void store_kvcache(const __grid_constant__ StoreKVCacheParams params) {}
template <bool kCastXBeforeOutMul, typename T, int VEC_SIZE_IN_BYTE>
__global__ void fused_add_rmsnorm_reg_kernel(T* __restrict__ input, T* __restrict__ residual,
    const T* __restrict__ weight, int vec_hidden_size, float eps) {}
template <typename T, ActivationKind kAct, bool kUsePDL, bool kFilterExpert, bool kRoundActivation = false,
          bool kReuseInput = false>
__global__ void act_and_mul_kernel(const __grid_constant__ ActivationParams params) {}
}  // namespace
template __global__ void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, vllm::Fp8KVCacheDataType::kAuto>(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, const int64_t*, const int64_t, const int64_t, const int64_t, const int64_t, const int64_t, const int, const int, const int, const float*, const float*, const int);
template __global__ void vllm::rms_norm_kernel<c10::BFloat16, 8, 3, true>(c10::BFloat16*, const c10::BFloat16*, const int64_t, const int64_t, const int64_t, const int64_t, const int64_t, const c10::BFloat16*, const float, const int, const int);
template __global__ void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8, true>(c10::BFloat16*, const int64_t, c10::BFloat16*, const int64_t, const c10::BFloat16*, const float, const int, const int);
template __global__ void vllm::rotary_embedding_kernel<c10::BFloat16, float, true>(const int64_t*, c10::BFloat16*, c10::BFloat16*, const float*, const int, const int64_t, const int64_t, const int64_t, const int, const int, const int);
template __global__ void vllm::act_and_mul_kernel<c10::BFloat16, __nv_bfloat162, vllm::silu_kernel<c10::BFloat16>, vllm::packed_silu_kernel<__nv_bfloat162>, true, true, false, false>(c10::BFloat16*, const c10::BFloat16*, const int, const float, const float, const float);
void launch_all() {
  store_kvcache<256, 256, 1, false, int64_t><<<1, 1>>>(StoreKVCacheParams{});
  fused_add_rmsnorm_reg_kernel<false, __nv_bfloat16, 16><<<1, 1>>>(nullptr, nullptr, nullptr, 0, 0.f);
  act_and_mul_kernel<__nv_bfloat16, ActivationKind::kSilu, false, false><<<1, 1>>>(ActivationParams{});
}
