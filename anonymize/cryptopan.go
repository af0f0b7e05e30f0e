package anonymize

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
)

// panCipher is a prefix-preserving permutation after Crypto-PAn (Xu, Fan,
// Ammar, Moon, 2002): bit i of the output is bit i of the input XOR a keyed
// function of the input's first i bits, so two addresses sharing an n-bit
// prefix share one after mapping, and the map is a bijection.
//
// Two departures from the reference, both because an address left as it
// was is a leak:
//   - The keyed function is a two-block CBC-MAC of (the first i bits, i),
//     not AES over the first i bits padded with the pad's bits: there, a
//     bit equal to the pad's gives the level below the same AES input, so
//     the decisions along a path repeat, and over an 8-bit range (the third
//     octet of 192.168.0.0/16) one key in 15 left an address as it was.
//   - The first permuted bit always flips. A prefix-preserving map leaves
//     the two halves of a range where they are unless its first decision
//     swaps them, and then every network of every length under them is
//     left as it was too (10.96.0.0/12 under one key in 16, 100.96.0.0/11
//     under one in 2). Flipping it moves every address and every network
//     narrower than the range; it tells a reader that one bit, which the
//     mapped address states anyway with the range's own bits.
type panCipher struct {
	block cipher.Block
}

func newPanCipher(key []byte) (*panCipher, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("prefix-preserving cipher key: %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key[:16])
	if err != nil {
		return nil, err
	}
	return &panCipher{block: block}, nil
}

// flip is the keyed bit for the node of the first pos bits of addr.
func (c *panCipher) flip(addr []byte, pos int) bool {
	var b [16]byte
	full := pos / 8
	copy(b[:full], addr[:full])
	if rem := pos % 8; rem > 0 {
		b[full] = addr[full] & (byte(0xff) << (8 - rem))
	}
	c.block.Encrypt(b[:], b[:])
	// The second block says which level and which family: the prefix of
	// one level never meets the prefix of another.
	b[0] ^= byte(pos)
	b[1] ^= byte(len(addr))
	c.block.Encrypt(b[:], b[:])
	return b[0]&0x80 != 0
}

// permute maps bits [from, to) of addr (4 or 16 bytes, most significant bit
// first), leaving the bits before from and from to on as they are. Bit
// from always flips: no input, and no prefix of it longer than from bits,
// is its own output when to > from.
func (c *panCipher) permute(addr []byte, from, to int) []byte {
	out := make([]byte, len(addr))
	copy(out, addr)
	for pos := from; pos < to; pos++ {
		if pos == from || c.flip(addr, pos) {
			out[pos/8] ^= 0x80 >> (pos % 8)
		}
	}
	return out
}
