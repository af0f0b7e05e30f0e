package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
)

const (
	dllName    = "bcryptprimitives.dll"
	exportName = "ProcessPrng"
	// A forwarder is an address-table entry whose RVA falls inside the
	// export directory's range: the loader reads it as "DLL.Function".
	forwardTo = "advapi32.SystemFunction036"

	imageBase        = 0x180000000
	sectionAlignment = 0x1000
	fileAlignment    = 0x200
	headersSize      = 0x200 // DOS + PE headers, padded to fileAlignment
	sectionRVA       = 0x1000

	machineAMD64          = 0x8664
	fileExecutableImage   = 0x0002
	fileLargeAddressAware = 0x0020
	fileDLL               = 0x2000
	optionalMagicPE32Plus = 0x20b
	subsystemConsole      = 3
	dllHighEntropyVA      = 0x0020
	dllDynamicBase        = 0x0040
	dllNXCompat           = 0x0100
	scnInitializedData    = 0x00000040
	scnMemRead            = 0x40000000
	numDataDirectories    = 16
	exportDirectorySize   = 40 // IMAGE_EXPORT_DIRECTORY
)

// exportSection lays out the .rdata section (at RVA sectionRVA): the
// IMAGE_EXPORT_DIRECTORY, then the export address table, the name pointer
// table, the ordinal table and the strings they point at.
func exportSection() []byte {
	off := uint32(exportDirectorySize)
	eatOff := off // one 4-byte RVA
	off += 4
	nptOff := off // one 4-byte RVA
	off += 4
	ordOff := off // one 2-byte ordinal (index into the address table)
	off += 2
	dllNameOff := off
	off += uint32(len(dllName) + 1)
	exportNameOff := off
	off += uint32(len(exportName) + 1)
	forwardOff := off
	off += uint32(len(forwardTo) + 1)

	rva := func(o uint32) uint32 { return sectionRVA + o }
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	// IMAGE_EXPORT_DIRECTORY
	w(uint32(0))          // Characteristics
	w(uint32(0))          // TimeDateStamp (0: reproducible output)
	w(uint16(0))          // MajorVersion
	w(uint16(0))          // MinorVersion
	w(rva(dllNameOff))    // Name
	w(uint32(1))          // Base (first ordinal)
	w(uint32(1))          // NumberOfFunctions
	w(uint32(1))          // NumberOfNames
	w(rva(eatOff))        // AddressOfFunctions
	w(rva(nptOff))        // AddressOfNames
	w(rva(ordOff))        // AddressOfNameOrdinals
	w(rva(forwardOff))    // address table[0]: inside the export range, so a forwarder
	w(rva(exportNameOff)) // name pointer table[0]
	w(uint16(0))          // ordinal table[0]: address table index 0
	b.WriteString(dllName + "\x00")
	b.WriteString(exportName + "\x00")
	b.WriteString(forwardTo + "\x00")
	if uint32(b.Len()) != off {
		panic("export section layout")
	}
	return b.Bytes()
}

func alignUp(n, a uint32) uint32 { return (n + a - 1) &^ (a - 1) }

// build returns the whole DLL.
func build() []byte {
	sec := exportSection()
	secVirtualSize := uint32(len(sec))
	secRawSize := alignUp(secVirtualSize, fileAlignment)
	imageSize := alignUp(sectionRVA+secVirtualSize, sectionAlignment)

	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }

	// DOS header (IMAGE_DOS_HEADER, 64 bytes): only e_magic and e_lfanew
	// matter; no DOS stub program.
	dos := make([]byte, 64)
	copy(dos, "MZ")
	binary.LittleEndian.PutUint32(dos[0x3c:], 0x40) // e_lfanew
	b.Write(dos)

	b.WriteString("PE\x00\x00")

	// COFF file header (IMAGE_FILE_HEADER)
	w(uint16(machineAMD64))
	w(uint16(1))   // NumberOfSections
	w(uint32(0))   // TimeDateStamp
	w(uint32(0))   // PointerToSymbolTable
	w(uint32(0))   // NumberOfSymbols
	w(uint16(240)) // SizeOfOptionalHeader (PE32+, 16 data directories)
	w(uint16(fileDLL | fileExecutableImage | fileLargeAddressAware))

	// Optional header (IMAGE_OPTIONAL_HEADER64)
	optStart := b.Len()
	w(uint16(optionalMagicPE32Plus))
	w(uint8(14))          // MajorLinkerVersion
	w(uint8(0))           // MinorLinkerVersion
	w(uint32(0))          // SizeOfCode
	w(secRawSize)         // SizeOfInitializedData
	w(uint32(0))          // SizeOfUninitializedData
	w(uint32(0))          // AddressOfEntryPoint: none (no DllMain)
	w(uint32(sectionRVA)) // BaseOfCode
	w(uint64(imageBase))
	w(uint32(sectionAlignment))
	w(uint32(fileAlignment))
	w(uint16(6)) // MajorOperatingSystemVersion
	w(uint16(0)) // MinorOperatingSystemVersion
	w(uint16(0)) // MajorImageVersion
	w(uint16(0)) // MinorImageVersion
	w(uint16(6)) // MajorSubsystemVersion
	w(uint16(0)) // MinorSubsystemVersion
	w(uint32(0)) // Win32VersionValue
	w(imageSize) // SizeOfImage
	w(uint32(headersSize))
	w(uint32(0)) // CheckSum (not checked for user-mode DLLs)
	w(uint16(subsystemConsole))
	w(uint16(dllHighEntropyVA | dllDynamicBase | dllNXCompat)) // nothing to relocate: no absolute addresses
	w(uint64(0x100000))                                        // SizeOfStackReserve
	w(uint64(0x1000))                                          // SizeOfStackCommit
	w(uint64(0x100000))                                        // SizeOfHeapReserve
	w(uint64(0x1000))                                          // SizeOfHeapCommit
	w(uint32(0))                                               // LoaderFlags
	w(uint32(numDataDirectories))
	// Data directory 0, the export table: the whole section, so that the
	// forwarder string lies inside it.
	w(uint32(sectionRVA))
	w(secVirtualSize)
	for i := 1; i < numDataDirectories; i++ {
		w(uint64(0))
	}
	if b.Len()-optStart != 240 {
		panic("optional header size")
	}

	// Section header (IMAGE_SECTION_HEADER)
	var name [8]byte
	copy(name[:], ".rdata")
	b.Write(name[:])
	w(secVirtualSize)
	w(uint32(sectionRVA))
	w(secRawSize)
	w(uint32(headersSize)) // PointerToRawData
	w(uint32(0))           // PointerToRelocations
	w(uint32(0))           // PointerToLinenumbers
	w(uint16(0))           // NumberOfRelocations
	w(uint16(0))           // NumberOfLinenumbers
	w(uint32(scnInitializedData | scnMemRead))

	if b.Len() > headersSize {
		panic("headers too large")
	}
	b.Write(make([]byte, headersSize-b.Len()))
	b.Write(sec)
	b.Write(make([]byte, int(secRawSize)-len(sec)))
	return b.Bytes()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: prngdll OUT.dll")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], build(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "prngdll:", err)
		os.Exit(1)
	}
}
