package ownerfile

import (
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// The descriptor Create gives CreateFile, its DACL read back: protected,
// the current user alone. Descriptors that inherit, or allow Everyone too,
// are refused by the same check Check applies to a file.
func TestOwnerOnlyDescriptor(t *testing.T) {
	user, err := currentUser()
	if err != nil {
		t.Fatal(err)
	}
	sd, err := ownerOnly(user)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkOwnerOnly(sd, user); err != nil {
		t.Errorf("%s: %v", sd, err)
	}
	for sddl, want := range map[string]string{
		"D:(A;;FA;;;" + user.String() + ")":              "inherits",
		"D:P(A;;FA;;;" + user.String() + ")(A;;FR;;;WD)": "also allows S-1-1-0",
		"D:P":                "allows no one",
		"O:" + user.String(): "no DACL",
	} {
		other, err := windows.SecurityDescriptorFromString(sddl)
		if err != nil {
			t.Fatalf("%s: %v", sddl, err)
		}
		if err := checkOwnerOnly(other, user); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", sddl, err, want)
		}
	}
}
