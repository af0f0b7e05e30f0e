package etltest

import "encoding/binary"

// Compress encodes src as [MS-XCA] Plain LZ77 (section 2.3), greedily,
// with matches found through a hash of three bytes: what the relogger
// does to each buffer after its header. The output is what a decoder
// following the specification reads back to src.
func Compress(src []byte) []byte {
	out := make([]byte, 4, len(src)/2+8)
	flagsAt, nflags := 0, 0
	var flags uint32
	nibbleAt := -1
	var table [1 << 14]int32
	for i := range table {
		table[i] = -1
	}
	hash := func(i int) int {
		v := uint32(src[i]) | uint32(src[i+1])<<8 | uint32(src[i+2])<<16
		return int((v * 2654435761) >> 18)
	}
	flag := func(bit uint32) {
		flags = flags<<1 | bit
		nflags++
		if nflags == 32 {
			binary.LittleEndian.PutUint32(out[flagsAt:], flags)
			flagsAt = len(out)
			out = append(out, 0, 0, 0, 0)
			flags, nflags = 0, 0
		}
	}
	for i := 0; i < len(src); {
		length, offset := 0, 0
		if i+3 <= len(src) {
			h := hash(i)
			if c := int(table[h]); c >= 0 && i-c <= 8192 {
				for length < len(src)-i && length < 1<<20 && src[c+length] == src[i+length] {
					length++
				}
				offset = i - c
			}
			table[h] = int32(i)
		}
		if length < 3 {
			out = append(out, src[i])
			flag(0)
			i++
			continue
		}
		total := length - 3
		sym := uint16(offset-1) << 3
		if total < 7 {
			out = binary.LittleEndian.AppendUint16(out, sym|uint16(total))
		} else {
			out = binary.LittleEndian.AppendUint16(out, sym|7)
			n := total - 7
			if n > 15 {
				n = 15
			}
			if nibbleAt < 0 {
				nibbleAt = len(out)
				out = append(out, byte(n))
			} else {
				out[nibbleAt] |= byte(n) << 4
				nibbleAt = -1
			}
			if n == 15 {
				if rest := total - 22; rest < 255 {
					out = append(out, byte(rest))
				} else {
					out = append(out, 255)
					if total <= 0xFFFF {
						out = binary.LittleEndian.AppendUint16(out, uint16(total))
					} else {
						out = binary.LittleEndian.AppendUint16(out, 0)
						out = binary.LittleEndian.AppendUint32(out, uint32(total))
					}
				}
			}
		}
		flag(1)
		// Index the positions the match covers, sparsely, for later matches.
		for j := i + 1; j < i+length && j+3 <= len(src); j += 4 {
			table[hash(j)] = int32(j)
		}
		i += length
	}
	// The bits left mark matches: a decoder stops at a match with no
	// input left.
	rest := 32 - nflags
	flags = flags<<rest | (1<<rest - 1)
	binary.LittleEndian.PutUint32(out[flagsAt:], flags)
	return out
}
