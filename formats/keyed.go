package formats

import "github.com/wincni/diag/snapshot"

// keyed is an object with an index of its keys' case-insensitive
// spellings, for the builders that ask one object for many keys it mostly
// lacks (classify, endpointOf): a key looked up that is not there exactly
// is looked for case-insensitively (obj.get, snapshot.Setting), which
// walks the whole object; with the index, a key that no key of the object
// spells otherwise costs a hash instead. It answers exactly as obj does.
// Build it after the object's last change.
type keyed struct {
	o obj
	// bits has two bits per key's lower-case spelling (from its hash);
	// slow is set when a key is not ASCII (Unicode folding is not
	// indexed).
	bits [2]uint64
	slow bool
}

func keyedOf(o obj) keyed {
	x := keyed{o: o}
	for k := range o {
		h, ok := foldHash(k)
		if !ok {
			x.slow = true
			continue
		}
		x.bits[h>>6&1] |= 1 << (h & 63)
		x.bits[h>>13&1] |= 1 << (h >> 7 & 63)
	}
	return x
}

// foldHash hashes s lower-cased (FNV-1a); false when s is not ASCII.
func foldHash(s string) (uint64, bool) {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return 0, false
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h ^ h>>29, true
}

// mayFold: some key of the object may spell key otherwise (both of its
// two bits are set).
func (x keyed) mayFold(key string) bool {
	if x.slow {
		return true
	}
	h, ok := foldHash(key)
	return !ok || x.bits[h>>6&1]&(1<<(h&63)) != 0 && x.bits[h>>13&1]&(1<<(h>>7&63)) != 0
}

// get is obj.get.
func (x keyed) get(key string) (any, bool) {
	if v, ok := x.o[key]; ok {
		return v, true
	}
	if !x.mayFold(key) {
		return nil, false
	}
	return x.o.get(key)
}

// hasAny is obj.hasAny.
func (x keyed) hasAny(keys ...string) bool {
	for _, k := range keys {
		if _, ok := x.o[k]; ok {
			return true
		}
	}
	for _, k := range keys {
		if x.mayFold(k) {
			return x.o.hasAny(keys...)
		}
	}
	return false
}

// first is obj.first (snapshot.Setting).
func (x keyed) first(keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := x.o[k]; ok && v != nil {
			return v, true
		}
	}
	for _, k := range keys {
		if x.mayFold(k) {
			return snapshot.Setting(x.o, keys...)
		}
	}
	return nil, false
}

func (x keyed) str(keys ...string) string { v, _ := x.first(keys...); return asString(v) }
func (x keyed) num(keys ...string) (int64, bool) {
	v, _ := x.first(keys...)
	return asInt(v)
}
func (x keyed) boolean(keys ...string) (value, ok bool) { v, _ := x.first(keys...); return boolOf(v) }
func (x keyed) child(keys ...string) obj                { v, _ := x.first(keys...); return childOf(v) }
func (x keyed) list(keys ...string) []obj               { v, _ := x.first(keys...); return objects(v) }
func (x keyed) strs(keys ...string) []string            { v, _ := x.first(keys...); return stringsOf(v) }
