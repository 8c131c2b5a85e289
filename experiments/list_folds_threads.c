// list_folds_threads.c: per-list folds of 2^28 i32 values (the bench's values and list
// lengths, uniform 0..2a for an average a, argument, default 64) on all threads (OpenMP,
// 4 096 lists per piece), two ways each for the minima and the sums: the AVX2 loop of
// crates/ragged-cpu/src/lists/simd.rs, and a fixed fold of 16 plain vector loads per
// list of at most 128 elements with the lanes past its end masked (PERFORMANCE v0.30).
// Build and run: gcc -O2 -mavx2 -fopenmp -o lf experiments/list_folds_threads.c && ./lf 64
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
static uint64_t h(uint64_t seed, uint64_t i){uint64_t z=i*0x9E3779B97F4A7C15ull+seed;z=(z^(z>>30))*0xBF58476D1CE4E5B9ull;z=(z^(z>>27))*0x94D049BB133111EBull;return z^(z>>31);}
static const int32_t LANES[16]={-1,-1,-1,-1,-1,-1,-1,-1,0,0,0,0,0,0,0,0};
static inline __m256i first_lanes(size_t r){return _mm256_loadu_si256((const __m256i*)(LANES+8-r%8));}
__attribute__((target("avx2"))) static inline int32_t hmin(__m256i acc){__m128i q=_mm_min_epi32(_mm256_castsi256_si128(acc),_mm256_extracti128_si256(acc,1));q=_mm_min_epi32(q,_mm_shuffle_epi32(q,0x4e));q=_mm_min_epi32(q,_mm_shuffle_epi32(q,0xb1));return _mm_cvtsi128_si32(q);}
__attribute__((target("avx2"))) static inline int64_t hsum64(__m256i s){__m128i q=_mm_add_epi64(_mm256_castsi256_si128(s),_mm256_extracti128_si256(s,1));return _mm_cvtsi128_si64(_mm_add_epi64(q,_mm_unpackhi_epi64(q,q)));}
__attribute__((target("avx2"))) static inline int32_t min_loop(const int32_t*p,size_t n){
  __m256i id=_mm256_set1_epi32(INT32_MAX),acc=id; size_t w=n/8;
  for(size_t k=0;k<w;k++)acc=_mm256_min_epi32(acc,_mm256_loadu_si256((const __m256i*)(p+8*k)));
  __m256i l=first_lanes(n%8); acc=_mm256_min_epi32(acc,_mm256_blendv_epi8(id,_mm256_maskload_epi32(p+8*w,l),l)); return hmin(acc);}
__attribute__((target("avx2"))) static inline int32_t min_plain(const int32_t*p,int n){
  __m256i id=_mm256_set1_epi32(INT32_MAX),acc=id,nn=_mm256_set1_epi32(n),idx=_mm256_setr_epi32(0,1,2,3,4,5,6,7),eight=_mm256_set1_epi32(8);
  for(int k=0;k<16;k++){__m256i l=_mm256_cmpgt_epi32(nn,idx); acc=_mm256_min_epi32(acc,_mm256_blendv_epi8(id,_mm256_loadu_si256((const __m256i*)(p+8*k)),l)); idx=_mm256_add_epi32(idx,eight);}
  return hmin(acc);}
__attribute__((target("avx2"))) static inline int64_t sum_loop(const int32_t*p,size_t n){
  size_t w=n/8; __m256i lo=_mm256_setzero_si256(),hi=lo;
  for(size_t k=0;k<w;k++){__m256i x=_mm256_loadu_si256((const __m256i*)(p+8*k));lo=_mm256_add_epi64(lo,_mm256_cvtepi32_epi64(_mm256_castsi256_si128(x)));hi=_mm256_add_epi64(hi,_mm256_cvtepi32_epi64(_mm256_extracti128_si256(x,1)));}
  __m256i x=_mm256_maskload_epi32(p+8*w,first_lanes(n%8));lo=_mm256_add_epi64(lo,_mm256_cvtepi32_epi64(_mm256_castsi256_si128(x)));hi=_mm256_add_epi64(hi,_mm256_cvtepi32_epi64(_mm256_extracti128_si256(x,1)));
  return hsum64(_mm256_add_epi64(lo,hi));}
__attribute__((target("avx2"))) static inline int64_t sum_plain(const int32_t*p,int n){
  __m256i lo=_mm256_setzero_si256(),hi=lo,nn=_mm256_set1_epi32(n),idx=_mm256_setr_epi32(0,1,2,3,4,5,6,7),eight=_mm256_set1_epi32(8);
  for(int k=0;k<16;k++){__m256i x=_mm256_and_si256(_mm256_cmpgt_epi32(nn,idx),_mm256_loadu_si256((const __m256i*)(p+8*k)));lo=_mm256_add_epi64(lo,_mm256_cvtepi32_epi64(_mm256_castsi256_si128(x)));hi=_mm256_add_epi64(hi,_mm256_cvtepi32_epi64(_mm256_extracti128_si256(x,1)));idx=_mm256_add_epi32(idx,eight);}
  return hsum64(_mm256_add_epi64(lo,hi));}
int main(int argc,char**argv){
  size_t n=1ull<<28; uint64_t avg=argc>1?atoi(argv[1]):64;
  int32_t*v=aligned_alloc(64,n*4+1024); 
  #pragma omp parallel for
  for(size_t i=0;i<n;i++)v[i]=(int32_t)(h(1,i)>>40);
  int32_t*off=malloc((n+2)*4); size_t L=0; off[0]=0; uint64_t end=0;
  while(end<n){end+= h(2+avg,L)%(2*avg+1); if(end>n)end=n; off[++L]=(int32_t)end;}
  int32_t*o1=malloc(L*4),*o2=malloc(L*4); int64_t*s1=malloc(L*8),*s2=malloc(L*8);
  #pragma omp parallel for
  for(size_t j=0;j<L;j++){o1[j]=o2[j]=0;s1[j]=s2[j]=0;}
  for(int r=0;r<4;r++){
    double t0=omp_get_wtime();
    #pragma omp parallel for schedule(static,4096)
    for(size_t j=0;j<L;j++){int len=off[j+1]-off[j]; o1[j]=len?min_loop(v+off[j],len):0;}
    double t1=omp_get_wtime();
    #pragma omp parallel for schedule(static,4096)
    for(size_t j=0;j<L;j++){int len=off[j+1]-off[j]; o2[j]=len==0?0:(len<=128?min_plain(v+off[j],len):min_loop(v+off[j],len));}
    double t2=omp_get_wtime();
    #pragma omp parallel for schedule(static,4096)
    for(size_t j=0;j<L;j++){int len=off[j+1]-off[j]; s1[j]=sum_loop(v+off[j],len);}
    double t3=omp_get_wtime();
    #pragma omp parallel for schedule(static,4096)
    for(size_t j=0;j<L;j++){int len=off[j+1]-off[j]; s2[j]=len<=128?sum_plain(v+off[j],len):sum_loop(v+off[j],len);}
    double t4=omp_get_wtime();
    size_t bad=0; for(size_t j=0;j<L;j++) bad+=(o1[j]!=o2[j])+(s1[j]!=s2[j]);
    printf("avg%lu threads %d: min loop %.1f plain %.1f | sum loop %.1f plain %.1f ms bad=%zu\n",avg,omp_get_max_threads(),(t1-t0)*1e3,(t2-t1)*1e3,(t3-t2)*1e3,(t4-t3)*1e3,bad);
  }
}
