package ownerfile

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Create creates path for writing with a protected DACL (nothing inherited
// from the folder) whose one entry gives the current user full control; it
// fails with an error matching fs.ErrExist when path exists.
func Create(path string) (*os.File, error) {
	user, err := currentUser()
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	sd, err := ownerOnly(user)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	// CREATE_NEW: never replace (nor take over) an existing file; the share
	// modes are those os.OpenFile uses.
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, sa, windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// Check returns nil when path's DACL is protected and allows no one but the
// current user, else an error naming what else it allows.
func Check(path string) error {
	user, err := currentUser()
	if err != nil {
		return err
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return &os.PathError{Op: "read the DACL of", Path: path, Err: err}
	}
	if err := checkOwnerOnly(sd, user); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ownerOnly is a security descriptor whose protected DACL ("P": nothing
// inherited) has one entry, full control for user.
func ownerOnly(user *windows.SID) (*windows.SECURITY_DESCRIPTOR, error) {
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;FA;;;" + user.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("owner-only security descriptor: %w", err)
	}
	return sd, nil
}

// checkOwnerOnly returns nil when sd's DACL is protected and allows user
// alone.
func checkOwnerOnly(sd *windows.SECURITY_DESCRIPTOR, user *windows.SID) error {
	ctl, _, err := sd.Control()
	if err != nil {
		return fmt.Errorf("security descriptor: %w", err)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		// No DACL at all is full access for everyone.
		return fmt.Errorf("no DACL (everyone has access), expected one for %s only", user)
	}
	if ctl&windows.SE_DACL_PROTECTED == 0 {
		return fmt.Errorf("its DACL inherits from the folder, expected a protected one for %s only", user)
	}
	allowed := 0
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return fmt.Errorf("DACL entry %d: %w", i, err)
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE {
			continue // a deny entry takes access away
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if !sid.Equals(user) {
			return fmt.Errorf("its DACL also allows %s, expected %s only", sid, user)
		}
		allowed++
	}
	if allowed == 0 {
		return fmt.Errorf("its DACL allows no one, expected %s", user)
	}
	return nil
}

// currentUser is the SID of the user this process runs as.
func currentUser() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("the current user's SID: %w", err)
	}
	return tu.User.Sid, nil
}
