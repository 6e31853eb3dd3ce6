// DDNet's C++ Huffman decoder (CHuffman from a DDNet checkout, built by
// benches/peers/run) over the payload file of examples/peer_huffman.rs:
// the same work, and the same output line, as `peer_huffman PAYLOADS
// ROUNDS`.
#include <engine/shared/huffman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv)
{
	if(argc != 3)
	{
		std::fprintf(stderr, "usage: ddnet_huffman PAYLOADS ROUNDS\n");
		return 2;
	}
	std::FILE *f = std::fopen(argv[1], "rb");
	if(!f)
		return 1;
	std::vector<unsigned char> file;
	unsigned char chunk[65536];
	std::size_t n;
	while((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0)
		file.insert(file.end(), chunk, chunk + n);
	std::fclose(f);
	std::vector<std::pair<const unsigned char *, int>> payloads;
	for(std::size_t at = 0; at + 4 <= file.size();)
	{
		std::uint32_t len = file[at] | file[at + 1] << 8 | file[at + 2] << 16 | (std::uint32_t)file[at + 3] << 24;
		at += 4;
		if(len > file.size() - at)
			return 1;
		payloads.emplace_back(&file[at], (int)len);
		at += len;
	}
	CHuffman huffman;
	huffman.Init();
	// DDNet's demo player decompresses into a buffer of 64 KiB
	// (CSnapshot::MAX_SIZE); so does teeoracle.
	static unsigned char out[65536];
	long rounds = std::atol(argv[2]);
	std::uint64_t bytes = 0, sum = 0;
	for(long r = 0; r < rounds; r++)
	{
		for(const auto &p : payloads)
		{
			int size = huffman.Decompress(p.first, p.second, out, sizeof(out));
			if(size < 0)
			{
				std::fprintf(stderr, "a payload does not decompress\n");
				return 1;
			}
			bytes += size;
			for(int i = 0; i < size; i++)
				sum += out[i];
		}
	}
	std::printf("%zu payloads, %llu bytes, sum %llu\n", payloads.size(), (unsigned long long)bytes, (unsigned long long)sum);
	return 0;
}
