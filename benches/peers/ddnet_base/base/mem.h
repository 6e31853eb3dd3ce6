// Stand-in for DDNet's base/mem.h, enough to build its huffman.cpp alone.
#ifndef TEEORACLE_PEER_MEM_H
#define TEEORACLE_PEER_MEM_H
#include <cstddef>
#include <cstring>
inline void mem_zero(void *block, std::size_t size) { std::memset(block, 0, size); }
#endif
