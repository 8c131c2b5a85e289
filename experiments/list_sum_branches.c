// list_sum_branches.c: what the per-list loop of the CPU list sums loses to the loop-exit
// branch (PERFORMANCE v0.30). One thread sums 2^28 i32 values (the bench's values) in
// lists of uniform 0..128 lengths, or of exactly 64 ("f" argument), two ways:
// - loop: the AVX2 fold of crates/ragged-cpu/src/lists/simd.rs (whole vectors, then a
//   masked tail), list by list;
// - prefix: per block of 4096 values the sums of its 8-value chunks as a running
//   prefix C, then each offset's prefix P(o) = C[chunk] + its chunk's lanes below o by
//   one masked load, and each list's sum P(o[j+1]) - P(o[j]) (no per-list loop).
// Build and run: gcc -O2 -mavx2 -o ls experiments/list_sum_branches.c && ./ls && ./ls f

#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static uint64_t h(uint64_t seed, uint64_t i){uint64_t z=i*0x9E3779B97F4A7C15ull+seed;z=(z^(z>>30))*0xBF58476D1CE4E5B9ull;z=(z^(z>>27))*0x94D049BB133111EBull;return z^(z>>31);}
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static const int32_t LANES[16]={-1,-1,-1,-1,-1,-1,-1,-1,0,0,0,0,0,0,0,0};
static inline __m256i first_lanes(size_t r){return _mm256_loadu_si256((const __m256i*)(LANES+8-r%8));}
__attribute__((target("avx2"))) static inline int64_t sum_list(const int32_t*p,size_t n){
  size_t w=n/8; __m256i lo=_mm256_setzero_si256(),hi=lo;
  for(size_t k=0;k<w;k++){__m256i x=_mm256_loadu_si256((const __m256i*)(p+8*k));lo=_mm256_add_epi64(lo,_mm256_cvtepi32_epi64(_mm256_castsi256_si128(x)));hi=_mm256_add_epi64(hi,_mm256_cvtepi32_epi64(_mm256_extracti128_si256(x,1)));}
  __m256i x=_mm256_maskload_epi32(p+8*w,first_lanes(n%8));lo=_mm256_add_epi64(lo,_mm256_cvtepi32_epi64(_mm256_castsi256_si128(x)));hi=_mm256_add_epi64(hi,_mm256_cvtepi32_epi64(_mm256_extracti128_si256(x,1)));
  __m256i s=_mm256_add_epi64(lo,hi);__m128i q=_mm_add_epi64(_mm256_castsi256_si128(s),_mm256_extracti128_si256(s,1));return _mm_cvtsi128_si64(_mm_add_epi64(q,_mm_unpackhi_epi64(q,q)));}
__attribute__((target("avx2"))) static inline int64_t hsum8(__m256i x){__m256i s=_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(x)),_mm256_cvtepi32_epi64(_mm256_extracti128_si256(x,1)));__m128i q=_mm_add_epi64(_mm256_castsi256_si128(s),_mm256_extracti128_si256(s,1));return _mm_cvtsi128_si64(_mm_add_epi64(q,_mm_unpackhi_epi64(q,q)));}
// prefix approach over blocks of B elements: C[k] = sum of chunks before k within the task
#define B 4096
__attribute__((target("avx2"))) static void prefix_sums(const int32_t*v,const int32_t*off,size_t lists,int64_t*out){
  static int64_t C[B/8+1];
  size_t blk=(size_t)-1; int64_t base=0; // sum of elements before block start
  int64_t prev=0; size_t total=off[lists];
  for(size_t j=0;j<=lists;j++){
    size_t o=off[j]; size_t b=o/B;
    while(blk!=b){ // advance to block b, computing C
      size_t nb = (blk==(size_t)-1)?0:blk+1;
      if(blk!=(size_t)-1){base+=C[B/8];}
      blk=nb; size_t s=blk*B; int64_t acc=0;
      size_t e = s+B<=total? s+B: total;
      for(size_t k=0;k<B/8;k++){C[k]=acc; size_t at=s+8*k; if(at+8<=e) acc+=hsum8(_mm256_loadu_si256((const __m256i*)(v+at))); else if(at<e) acc+=hsum8(_mm256_maskload_epi32(v+at,first_lanes(e-at)));}
      C[B/8]=acc;
    }
    size_t k=(o%B)/8; int64_t P=base+C[k];
    size_t at=o-o%8; // partial lanes below o%8
    if(o%8) P+=hsum8(_mm256_maskload_epi32(v+at,first_lanes(o%8)));
    if(j) out[j-1]=P-prev; prev=P;
  }
}
int main(int argc,char**argv){
  size_t n=1ull<<28; int fixed=argc>1&&argv[1][0]=='f';
  int32_t*v=aligned_alloc(64,n*4); for(size_t i=0;i<n;i++)v[i]=(int32_t)(h(1,i)>>40);
  int32_t*off=malloc((n+2)*4); size_t L=0; off[0]=0; uint64_t end=0;
  while(end<n){end+= fixed?64:h(66,L)%129; if(end>n)end=n; off[++L]=(int32_t)end;}
  int64_t*out=malloc(L*8),*out2=malloc(L*8);
  for(int r=0;r<3;r++){
    double t=now(); for(size_t j=0;j<L;j++) out[j]=sum_list(v+off[j],off[j+1]-off[j]); double t1=now();
    prefix_sums(v,off,L,out2); double t2=now();
    size_t bad=0; for(size_t j=0;j<L;j++) bad+=out[j]!=out2[j];
    printf("%s lists=%zu loop %.1f ms prefix %.1f ms bad=%zu\n",fixed?"fixed64":"uniform0-128",L,(t1-t)*1e3,(t2-t1)*1e3,bad);
  }
}
