/* heap_stats.c - WebAssembly build only: how many bytes of the heap are in
 * use, so tests can see a leak that stays under the memory's high-water mark
 * (memory.buffer.byteLength never shrinks, so it cannot show one).
 *
 * The build links emmalloc (-sMALLOC=emmalloc). Its heap is a row of regions,
 * each in use or free; the bytes in use are the sizes of the regions in use
 * (payload and header), which is what is left of the heap after the free
 * regions. mallinfo()'s uordblks is not used: it also counts the header of
 * every free region, so it moves with fragmentation when nothing leaks.
 */
#include <emscripten/emmalloc.h>
#include <stddef.h>

/* Bytes in regions in use; the heap's few sentinel regions are included,
 * so compare two readings, not a reading with zero. */
size_t poslab_heap_bytes_in_use(void) {
    enum { REGION_HEADER_BYTES = 8 }; /* emmalloc.c: REGION_HEADER_SIZE */
    size_t by_size[32];
    size_t free_regions = emmalloc_compute_free_dynamic_memory_fragmentation_map(by_size);
    /* emmalloc_free_dynamic_memory() sums the free regions' payloads */
    size_t free_bytes = emmalloc_free_dynamic_memory() + free_regions * REGION_HEADER_BYTES;
    return emmalloc_dynamic_heap_size() - free_bytes;
}
