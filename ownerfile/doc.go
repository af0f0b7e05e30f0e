// Package ownerfile creates files that only the user who writes them can
// read: the anonymize key and map, which undo a bundle's pseudonyms.
//
// On Unix that is mode 0600. On Windows a mode means nothing (a new file
// takes its folder's inherited ACL, so a key in C:\Users\Public is readable
// by every user), so the file is created with a protected DACL that grants
// the current user alone, set at creation so that there is no moment when
// another user could open it.
//
// Imports: none.
package ownerfile
