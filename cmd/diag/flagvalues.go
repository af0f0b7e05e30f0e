package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// annotationValid holds, on a flag, what its value must be ("a UDP port,
// 1 to 65535"), for the one line that refuses a bad value.
const annotationValid = "diag-valid"

// validValues says what a flag takes, for a flag whose range or syntax is
// not plain from its type.
func validValues(f *pflag.FlagSet, name, what string) {
	_ = f.SetAnnotation(name, annotationValid, []string{what})
}

// whatFlagTakes is the phrase for a flag's valid values: its annotation,
// else one from its type.
func whatFlagTakes(fl *pflag.Flag) string {
	if v := fl.Annotations[annotationValid]; len(v) > 0 {
		return v[0]
	}
	switch fl.Value.Type() {
	case "duration":
		return "a duration such as 30s, 5m or 1h30m"
	case "int", "int64", "int32":
		return "a whole number"
	case "uint", "uint32", "uint64", "uint16":
		return "a whole number, 0 or more"
	case "uintSlice", "intSlice":
		return "whole numbers, comma-separated"
	case "bool":
		return "true or false"
	}
	return "a " + fl.Value.Type()
}

// flagError turns pflag's "invalid argument ... strconv.ParseUint: ..."
// into one line that says what the flag takes.
func flagError(c *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) {
		return usageErrorf("--%s must be %s, not %q (see %s --help)", ive.GetFlag().Name, whatFlagTakes(ive.GetFlag()), ive.GetValue(), c.CommandPath())
	}
	return usageErrorf("%v (see %s --help)", err, c.CommandPath())
}

// outOfRange refuses a parsed value outside the flag's range, in the same
// words as a value that does not parse.
func outOfRange(c *cobra.Command, name string, value any) error {
	fl := c.Flags().Lookup(name)
	return usageErrorf("--%s must be %s, not %v (see %s --help)", name, whatFlagTakes(fl), value, c.CommandPath())
}

// annotationFoldCase marks a flag whose value is one of a few words
// (-o json, --color never): any case is taken, as --fail-on and rule IDs
// are, since PowerShell users write -o JSON.
const annotationFoldCase = "diag-fold-case"

// foldCase marks flags as taking their words in any case.
func foldCase(f *pflag.FlagSet, names ...string) {
	for _, n := range names {
		_ = f.SetAnnotation(n, annotationFoldCase, []string{"true"})
	}
}

// foldFlagValues lowers the values given to the flags foldCase marked,
// before any command reads them.
func foldFlagValues(c *cobra.Command) error {
	var err error
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if err != nil || !fl.Changed || len(fl.Annotations[annotationFoldCase]) == 0 {
			return
		}
		if v := fl.Value.String(); v != strings.ToLower(v) {
			err = fl.Value.Set(strings.ToLower(v))
		}
	})
	return err
}
