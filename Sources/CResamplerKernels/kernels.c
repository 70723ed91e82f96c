#include "resampler_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

int np_resampler_has_fma(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

__attribute__((target("avx2,fma"))) static inline float sum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// Two accumulators per sum: the FMA latency (4 cycles) hides behind the other chain and loads.
__attribute__((target("avx2,fma"))) float np_resampler_dot_fma(const float *k, const float *x, ptrdiff_t n) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    ptrdiff_t j = 0;
    for (; j + 16 <= n; j += 16) {
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(k + j), _mm256_loadu_ps(x + j), a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(k + j + 8), _mm256_loadu_ps(x + j + 8), a1);
    }
    if (j < n) a0 = _mm256_fmadd_ps(_mm256_loadu_ps(k + j), _mm256_loadu_ps(x + j), a0);
    return sum8(_mm256_add_ps(a0, a1));
}

__attribute__((target("avx2,fma"))) void np_resampler_dot2_fma(const float *k, const float *x, const float *y, ptrdiff_t n, float *out) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
    ptrdiff_t j = 0;
    for (; j + 16 <= n; j += 16) {
        __m256 k0 = _mm256_loadu_ps(k + j), k1 = _mm256_loadu_ps(k + j + 8);
        a0 = _mm256_fmadd_ps(k0, _mm256_loadu_ps(x + j), a0);
        b0 = _mm256_fmadd_ps(k0, _mm256_loadu_ps(y + j), b0);
        a1 = _mm256_fmadd_ps(k1, _mm256_loadu_ps(x + j + 8), a1);
        b1 = _mm256_fmadd_ps(k1, _mm256_loadu_ps(y + j + 8), b1);
    }
    if (j < n) {
        __m256 k0 = _mm256_loadu_ps(k + j);
        a0 = _mm256_fmadd_ps(k0, _mm256_loadu_ps(x + j), a0);
        b0 = _mm256_fmadd_ps(k0, _mm256_loadu_ps(y + j), b0);
    }
    out[0] = sum8(_mm256_add_ps(a0, a1));
    out[1] = sum8(_mm256_add_ps(b0, b1));
}

#else

int np_resampler_has_fma(void) { return 0; }
float np_resampler_dot_fma(const float *k, const float *x, ptrdiff_t n) { (void)k; (void)x; (void)n; return 0; }
void np_resampler_dot2_fma(const float *k, const float *x, const float *y, ptrdiff_t n, float *out) {
    (void)k; (void)x; (void)y; (void)n; out[0] = out[1] = 0;
}

#endif
