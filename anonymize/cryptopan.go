package anonymize

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
)

// panCipher is Crypto-PAn (Xu, Fan, Ammar, Moon: "Prefix-preserving IP
// address anonymization", 2002): bit i of the output is bit i of the input
// XOR the first bit of AES over the input's first i bits padded with a
// secret pad. Two addresses sharing an n-bit prefix share one after
// mapping, and the map is a bijection. The 32-byte key is the AES-128 key
// then the pad's seed, as in the reference implementation, whose published
// vectors the tests hold it to. permute works on any bit range, so that a
// range can be left as it is (RFC 1918's first bits, the last octet).
type panCipher struct {
	block cipher.Block
	pad   [16]byte
}

func newPanCipher(key []byte) (*panCipher, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("crypto-pan key: %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key[:16])
	if err != nil {
		return nil, err
	}
	c := &panCipher{block: block}
	block.Encrypt(c.pad[:], key[16:32])
	return c, nil
}

// permute maps bits [from, to) of addr (4 or 16 bytes, most significant bit
// first), leaving the bits before from and from to on as they are.
func (c *panCipher) permute(addr []byte, from, to int) []byte {
	n := len(addr)
	out := make([]byte, n)
	copy(out, addr)
	var in, enc [16]byte
	for pos := from; pos < to; pos++ {
		// The first pos bits of the original, the pad's bits after them.
		copy(in[:], c.pad[:])
		full := pos / 8
		copy(in[:full], addr[:full])
		if rem := pos % 8; rem > 0 {
			mask := byte(0xff) << (8 - rem)
			in[full] = addr[full]&mask | c.pad[full]&^mask
		}
		c.block.Encrypt(enc[:], in[:])
		if enc[0]&0x80 != 0 {
			out[pos/8] ^= 0x80 >> (pos % 8)
		}
	}
	return out
}
