// compose-check loads a Compose file the way `docker compose` does (github.com/compose-spec/compose-go:
// the Compose Specification's JSON schema, interpolation, normalization) and prints the resolved
// project as JSON, or the loader's error and exit status 1. test/deploy/compose.test.ts runs it on
// deploy/compose.yaml: there is no Docker engine (nor compose plugin) where the tests run.
//
//	compose-check FILE     (environment variables interpolate as in docker compose)
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check FILE")
		os.Exit(2)
	}
	file, err := filepath.Abs(os.Args[1])
	if err == nil {
		var options *cli.ProjectOptions
		options, err = cli.NewProjectOptions([]string{file}, cli.WithOsEnv, cli.WithWorkingDirectory(filepath.Dir(file)), cli.WithName("agent-incidents"))
		if err == nil {
			var out []byte
			project, loadErr := options.LoadProject(context.Background())
			err = loadErr
			if err == nil {
				out, err = project.MarshalJSON()
			}
			if err == nil {
				fmt.Println(string(out))
				return
			}
		}
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
