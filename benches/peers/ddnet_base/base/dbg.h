// Stand-in for DDNet's base/dbg.h, enough to build its huffman.cpp alone:
// DDNet checks its asserts in release builds too, so this does.
#ifndef TEEORACLE_PEER_DBG_H
#define TEEORACLE_PEER_DBG_H
#include <cstdio>
#include <cstdlib>
#define dbg_assert(test, ...) \
	do \
	{ \
		if(!(test)) \
		{ \
			std::fprintf(stderr, __VA_ARGS__); \
			std::abort(); \
		} \
	} while(0)
#endif
