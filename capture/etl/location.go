package etl

import "fmt"

// Layer names the part of the stack a drop location (PKTMON_DROP_LOCATION)
// belongs to, from its high bits: the file has no map of locations, and
// pktmon prints them as numbers.
func Layer(loc uint32) string {
	if loc>>16 != 0xE000 {
		return ""
	}
	switch v := loc & 0xFFFF; {
	case v>>12 == 1:
		return "NDIS"
	case v>>12 == 2:
		return "vSwitch"
	case v>>12 == 3:
		return "NetVsc"
	case v>>8 == 0x40:
		return "TCP/IP FL"
	case v>>8 >= 0x41 && v>>8 <= 0x42:
		return "TCP/IP NL"
	case v>>8 >= 0x45 && v>>8 <= 0x4F:
		return "TCP/IP TL"
	case v>>12 == 4:
		return "TCP/IP"
	case v>>12 == 5:
		return "HTTP"
	case v>>12 == 6:
		return "VFP"
	case v>>12 == 7:
		return "SLBmux"
	case v>>12 == 8:
		return "IPsec"
	case v>>12 == 9:
		return "NetCx"
	}
	return ""
}

// LocationName names a drop location by its layer and number, e.g.
// "VFP 0xE0006001"; the number alone when the layer is unknown.
func LocationName(loc uint32) string {
	if l := Layer(loc); l != "" {
		return fmt.Sprintf("%s 0x%08X", l, loc)
	}
	return fmt.Sprintf("0x%08X", loc)
}
