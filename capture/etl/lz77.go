package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// errLZ77 marks compressed data that does not decode to the size the
// buffer header gives.
var errLZ77 = errors.New("plain LZ77")

// inflate decompresses [MS-XCA] Plain LZ77 data (section 2.4) and
// appends it to dst (which may hold a prefix: the buffer's header); the
// data must come out exactly want bytes long: the relogger compresses
// each buffer after its header, and the header's SavedOffset says how
// long the buffer was before. Output never grows past want, whatever the
// input claims, and grows as it is written: a short input claiming a
// large buffer costs what it inflates to.
func inflate(dst, src []byte, want int) ([]byte, error) {
	base := len(dst)
	out := dst[:min(cap(dst), base+want)]
	if len(out) < base+want && len(out) < base+16*len(src)+4096 {
		out = make([]byte, base+min(want, 16*len(src)+4096))
		copy(out, dst)
	}
	// room makes out hold n more bytes from o (n <= want-o), growing to
	// a power of two so that the buffer serves the next ones.
	room := func(o, n int) {
		if base+o+n > len(out) {
			c := 64 << 10
			for c < base+o+n {
				c <<= 1
			}
			grown := make([]byte, min(base+want, c), c)
			copy(grown, out[:base+o])
			out = grown
		}
	}
	o := 0
	var flags uint32
	nflags := 0
	in := 0
	nibble := -1 // position of the shared length byte whose high half is still unused
	for {
		if nflags == 0 {
			if in+4 > len(src) {
				break // no flags left: the input ends
			}
			flags = binary.LittleEndian.Uint32(src[in:])
			in += 4
			nflags = 32
		}
		if nflags == 32 && flags == 0 && in+32 <= len(src) && base+o+32 <= len(out) && o+32 <= want {
			// 32 literals, the common case of data that does not compress:
			// one fixed-size copy.
			*(*[32]byte)(out[base+o:]) = *(*[32]byte)(src[in:])
			o, in, nflags = o+32, in+32, 0
			continue
		}
		if flags&(1<<(nflags-1)) == 0 {
			// A run of literals: as many as the flag bits say, at once.
			k := min(bits.LeadingZeros32(flags<<(32-nflags)), nflags, len(src)-in)
			if k == 0 {
				break // the input ends
			}
			if k > want-o {
				return out[:base+o], fmt.Errorf("%w: inflates past %d bytes", errLZ77, want)
			}
			room(o, k)
			copy(out[base+o:], src[in:in+k])
			o, in, nflags = o+k, in+k, nflags-k
			continue
		}
		nflags--
		if in == len(src) {
			break // a match that would start at the end of input ends the data
		}
		if in+2 > len(src) {
			return out[:base+o], fmt.Errorf("%w: a match cut at byte %d", errLZ77, in)
		}
		m := int(binary.LittleEndian.Uint16(src[in:]))
		in += 2
		length, offset := m&7, m>>3+1
		if length == 7 {
			if nibble < 0 {
				if in >= len(src) {
					return out[:base+o], fmt.Errorf("%w: a match length cut at byte %d", errLZ77, in)
				}
				length = int(src[in] & 15)
				nibble = in
				in++
			} else {
				length = int(src[nibble] >> 4)
				nibble = -1
			}
			if length == 15 {
				if in >= len(src) {
					return out[:base+o], fmt.Errorf("%w: a match length cut at byte %d", errLZ77, in)
				}
				length = int(src[in])
				in++
				if length == 255 {
					if in+2 > len(src) {
						return out[:base+o], fmt.Errorf("%w: a match length cut at byte %d", errLZ77, in)
					}
					length = int(binary.LittleEndian.Uint16(src[in:]))
					in += 2
					if length == 0 {
						if in+4 > len(src) {
							return out[:base+o], fmt.Errorf("%w: a match length cut at byte %d", errLZ77, in)
						}
						length = int(binary.LittleEndian.Uint32(src[in:]))
						in += 4
					}
					if length < 15+7 {
						return out[:base+o], fmt.Errorf("%w: a match length of %d at byte %d, under the 22 its encoding implies", errLZ77, length, in)
					}
					length -= 15 + 7
				}
				length += 15
			}
			length += 7
		}
		length += 3
		if offset > o {
			return out[:base+o], fmt.Errorf("%w: a match %d bytes back with only %d bytes out", errLZ77, offset, o)
		}
		if length > want-o {
			return out[:base+o], fmt.Errorf("%w: inflates past %d bytes", errLZ77, want)
		}
		room(o, length)
		// An overlapping match repeats what it copies: copy the pattern
		// that is there, which doubles with each copy.
		from, end := base+o-offset, base+o+length
		for p := base + o; p < end; {
			p += copy(out[p:end], out[from:p])
		}
		o += length
	}
	if o != want {
		return out[:base+o], fmt.Errorf("%w: inflates to %d bytes, the buffer header says %d", errLZ77, o, want)
	}
	return out[:base+want], nil
}
