package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/anonymize"
)

// newBundleKeyCommand makes the key a team shares, so that the bundles of
// several nodes, or of one node over days, are anonymized alike.
func newBundleKeyCommand(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "key FILE",
		Short: "Write a new anonymize key to FILE, to anonymize several bundles alike",
		Long: `key writes a new random key (64 hex digits) to FILE, readable by you only, and prints its ID.
Give it to diag bundle anonymize --key-file for every bundle of a cluster, or of one node before
and after, so that their pseudonyms line up and analyze and diff compare them. Keep FILE as you
would a password: with it, the pseudonyms can be mapped back. An existing FILE is never replaced.` + exitStatusCommon,
		Example: `  diag bundle key team.key
  diag bundle anonymize node1.zip --key-file team.key
  diag bundle anonymize node2.zip --key-file team.key`,
		Args: func(c *cobra.Command, args []string) error { return exactlyOne(c, args, "the key file to write") },
		RunE: func(c *cobra.Command, args []string) error {
			k, err := anonymize.NewKey()
			if err != nil {
				return err
			}
			if err := anonymize.WriteKeyFile(args[0], k); err != nil {
				return usageErrorf("key %s: %v (an existing key is never replaced)", args[0], pathErr(err))
			}
			_, err = fmt.Fprintf(e.stdout, "%s: new key, ID %s (diag bundle anonymize --key-file %s)\n", args[0], k.ID(), args[0])
			return err
		},
	}
}
