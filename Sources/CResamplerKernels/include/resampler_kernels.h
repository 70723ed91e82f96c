// The resampler's inner loop in 8-wide fused multiply-add (AVX2 + FMA), which Swift cannot
// enable for one function: its x86-64 baseline is SSE2, and the toolchain has no per-function
// target attribute. Chosen at run time (np_resampler_has_fma); elsewhere the Swift SIMD loop runs.
// Not named noti_play_*: the shipped C library exports exactly that prefix.
#ifndef NP_RESAMPLER_KERNELS_H
#define NP_RESAMPLER_KERNELS_H
#include <stddef.h>

/// 1 when the processor has AVX2 and FMA (and the kernels below may be called), else 0.
int np_resampler_has_fma(void);

/// Σ k[j]·x[j] for j < n; n is a multiple of 8.
float np_resampler_dot_fma(const float *k, const float *x, ptrdiff_t n);

/// Σ k[j]·x[j] and Σ k[j]·y[j] into out[0], out[1], each in the same order as np_resampler_dot_fma.
void np_resampler_dot2_fma(const float *k, const float *x, const float *y, ptrdiff_t n, float *out);

#endif
