package formats

import (
	"reflect"
	"strings"
	"testing"
)

// keyedSame checks that keyed answers every lookup as obj does.
func keyedSame(t *testing.T, o obj, lookups [][]string) {
	t.Helper()
	x := keyedOf(o)
	for _, keys := range lookups {
		v1, ok1 := o.first(keys...)
		v2, ok2 := x.first(keys...)
		if ok1 != ok2 || !reflect.DeepEqual(v1, v2) {
			t.Errorf("%v first(%q): obj %v %v, keyed %v %v", o, keys, v1, ok1, v2, ok2)
		}
		if a, b := o.hasAny(keys...), x.hasAny(keys...); a != b {
			t.Errorf("%v hasAny(%q): obj %v, keyed %v", o, keys, a, b)
		}
		for _, k := range keys {
			v1, ok1 := o.get(k)
			v2, ok2 := x.get(k)
			if ok1 != ok2 || !reflect.DeepEqual(v1, v2) {
				t.Errorf("%v get(%q): obj %v %v, keyed %v %v", o, k, v1, ok1, v2, ok2)
			}
		}
	}
}

var keyedLookups = [][]string{{"ID", "Id"}, {"IPAddress"}, {"ipaddress"}, {"VirtualNetwork", "HostComputeNetwork"}, {"K"}, {"k"},
	{"State"}, {"Policies"}, {"İD"}, {strings.Repeat("A", 70)}, {"Name", "name"}, {""}}

func TestKeyedSameAsObj(t *testing.T) {
	for _, o := range []obj{
		{},
		{"ID": "a", "IPAddress": "10.0.0.1", "State": nil},
		{"id": "a", "ipaddress": "10.0.0.1", "STATE": "2"},
		{"Id": nil, "ID": nil},
		{"\u212a": "kelvin", "name": "n"}, // folds to k
		{"İd": "dotted", "policies": []any{}},
		{strings.Repeat("a", 70): "long", "": "empty"},
		{"Virtualnetwork": "v", "HostComputeNetwork": nil},
	} {
		keyedSame(t, o, keyedLookups)
	}
}

// FuzzKeyed: objects whose keys are the lines of the input.
func FuzzKeyed(f *testing.F) {
	f.Add("ID\nipaddress\nState")
	f.Add("\u212a\nNAME\n")
	f.Add("İD\nid")
	f.Fuzz(func(t *testing.T, s string) {
		o := obj{}
		lookups := keyedLookups
		for i, k := range strings.Split(s, "\n") {
			if i%3 == 2 {
				o[k] = nil
			} else {
				o[k] = k
			}
			lookups = append(lookups, []string{strings.ToUpper(k)}, []string{strings.ToLower(k), k})
		}
		// Two keys spelled alike case-insensitively make obj's own answer
		// depend on the map's order: nothing to compare.
		for a := range o {
			for b := range o {
				if a != b && strings.EqualFold(a, b) {
					return
				}
			}
		}
		keyedSame(t, o, lookups)
	})
}
