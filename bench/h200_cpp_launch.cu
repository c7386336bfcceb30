// Host time per kernel launch from C++, as a hand-written trainer (llm.c, llm.q) pays it: no Python, no framework
// dispatcher. Three loops, each timed on the host around the launches alone (the GPU runs far behind, so the loop's
// wall time is the host's), then synchronized:
//   1. an empty kernel, 20000 launches (cudaLaunchKernel through <<<>>>);
//   2. a small elementwise kernel over 4096 bf16 values, 20000 launches;
//   3. a bf16 GEMM through cuBLASLt set up on every call as llm.c's matmul_cublaslt does it (llmc/matmul.cuh at
//      f1e2ace: matmul descriptor, transposes, bias epilogue, three matrix layouts, a preference with a workspace
//      limit, cublasLtMatmulAlgoGetHeuristic, cublasLtMatmul, then every descriptor destroyed), 64 x 64 x 64 so that
//      the GPU keeps up, 5000 calls; and the same GEMM with the descriptors and the algorithm made once (2000 calls).
// Each loop runs 3 times after a warm-up; the median per call is printed as JSON. (Measured as first written, before
// its GEMM set-up was shared by the two GEMM loops here; the calls they time are the same.)
// Build and run on one GPU: nvcc -O3 -arch=sm_90 -o cpp_launch bench/h200_cpp_launch.cu -lcublasLt && ./cpp_launch
#include <cstdio>
#include <chrono>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cublasLt.h>

#define CK(x) do { auto e = (x); if (e != cudaSuccess) { printf("cuda %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
#define LT(x) do { auto e = (x); if (e != CUBLAS_STATUS_SUCCESS) { printf("cublasLt %d line %d\n", (int)e, __LINE__); return 1; } } while (0)

__global__ void empty_kernel() {}
__global__ void scale_kernel(__nv_bfloat16* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __float2bfloat16(__bfloat162float(x[i]) * 0.999f);
}

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <typename F> static double per_call(int calls, F f) {
    std::vector<double> t;
    f(); cudaDeviceSynchronize();
    for (int r = 0; r < 3; r++) {
        double s = now();
        for (int i = 0; i < calls; i++) f();
        t.push_back((now() - s) / calls);
        cudaDeviceSynchronize();
    }
    std::sort(t.begin(), t.end());
    return t[1];
}

static cublasLtHandle_t lt;
static void* workspace;
static const size_t WS = 32 << 20;

// the descriptors of an m x n x k bf16 GEMM (A transposed, as llm.c's), its bias epilogue where a bias is given, and
// the algorithm cublasLt's heuristic picks for them
struct Gemm { cublasLtMatmulDesc_t op; cublasLtMatrixLayout_t la, lb, lc, ld; cublasLtMatmulPreference_t pref; cublasLtMatmulAlgo_t algo; };

static int gemm_make(Gemm& g, const __nv_bfloat16* bias, int m, int n, int k) {
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    LT(cublasLtMatmulDescCreate(&g.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    LT(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    LT(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
    if (bias) {
        cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
        LT(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
        cudaDataType_t bt = CUDA_R_16BF;
        LT(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt)));
        LT(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    }
    LT(cublasLtMatrixLayoutCreate(&g.la, CUDA_R_16BF, k, m, k));
    LT(cublasLtMatrixLayoutCreate(&g.lb, CUDA_R_16BF, k, n, k));
    LT(cublasLtMatrixLayoutCreate(&g.lc, CUDA_R_16BF, m, n, m));
    LT(cublasLtMatrixLayoutCreate(&g.ld, CUDA_R_16BF, m, n, m));
    LT(cublasLtMatmulPreferenceCreate(&g.pref));
    LT(cublasLtMatmulPreferenceSetAttribute(g.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WS, sizeof(WS)));
    cublasLtMatmulHeuristicResult_t h; int found = 0;
    LT(cublasLtMatmulAlgoGetHeuristic(lt, g.op, g.la, g.lb, g.lc, g.ld, g.pref, 1, &h, &found));
    if (!found) { printf("no algorithm\n"); return 1; }
    g.algo = h.algo;
    return 0;
}

static int gemm_run(Gemm& g, __nv_bfloat16* d, const __nv_bfloat16* a, const __nv_bfloat16* b, cudaStream_t stream) {
    float alpha = 1, beta = 0;
    LT(cublasLtMatmul(lt, g.op, &alpha, a, g.la, b, g.lb, &beta, d, g.lc, d, g.ld, &g.algo, workspace, WS, stream));
    return 0;
}

static void gemm_free(Gemm& g) {
    cublasLtMatmulPreferenceDestroy(g.pref);
    cublasLtMatmulDescDestroy(g.op);
    cublasLtMatrixLayoutDestroy(g.la); cublasLtMatrixLayoutDestroy(g.lb);
    cublasLtMatrixLayoutDestroy(g.lc); cublasLtMatrixLayoutDestroy(g.ld);
}

// one GEMM set up from scratch, the way llm.c's matmul_cublaslt does on every call
static int gemm_fresh(__nv_bfloat16* d, const __nv_bfloat16* a, const __nv_bfloat16* b, const __nv_bfloat16* bias,
                      int m, int n, int k, cudaStream_t stream) {
    Gemm g;
    int err = gemm_make(g, bias, m, n, k) || gemm_run(g, d, a, b, stream);
    gemm_free(g);
    return err;
}

int main() {
    const int n = 64, N = 4096;
    __nv_bfloat16 *a, *b, *d, *bias, *x;
    CK(cudaMalloc(&a, n * n * 2)); CK(cudaMalloc(&b, n * n * 2)); CK(cudaMalloc(&d, n * n * 2));
    CK(cudaMalloc(&bias, n * 2)); CK(cudaMalloc(&x, N * 2)); CK(cudaMalloc(&workspace, WS));
    CK(cudaMemset(a, 0, n * n * 2)); CK(cudaMemset(b, 0, n * n * 2)); CK(cudaMemset(bias, 0, n * 2)); CK(cudaMemset(x, 0, N * 2));
    LT(cublasLtCreate(&lt));
    cudaStream_t s; CK(cudaStreamCreate(&s));
    int err = 0;
    double empty = per_call(20000, [&] { empty_kernel<<<1, 32, 0, s>>>(); });
    double scale = per_call(20000, [&] { scale_kernel<<<N / 256, 256, 0, s>>>(x, N); });
    double fresh = per_call(5000, [&] { err |= gemm_fresh(d, a, b, bias, n, n, n, s); });
    // the same GEMM with everything made once: what a trainer that caches its descriptors pays
    Gemm once;
    if (gemm_make(once, NULL, n, n, n)) return 1;
    double cached = per_call(2000, [&] { err |= gemm_run(once, d, a, b, s); });
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    int rt, drv; cudaRuntimeGetVersion(&rt); cudaDriverGetVersion(&drv);
    printf("{\"gpu\": \"%s\", \"cuda_runtime\": %d, \"driver\": %d, \"cublasLt\": %zu, \"errors\": %d,\n"
           " \"empty_kernel_launch_s\": %.4g, \"elementwise_kernel_launch_s\": %.4g,\n"
           " \"cublaslt_gemm_set_up_every_call_s\": %.4g, \"cublaslt_gemm_cached_s\": %.4g}\n",
           p.name, rt, drv, cublasLtGetVersion(), err, empty, scale, fresh, cached);
    return 0;
}
