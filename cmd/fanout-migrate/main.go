package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
)

// Exit codes; doc.go describes them.
const (
	exitOK       = 0
	exitReported = 1
	exitError    = 2
)

func main() {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fanout-migrate:", err)
		os.Exit(exitError)
	}
	os.Exit(run(os.Args[1:], wd, os.Stdout, os.Stderr))
}

// run is the whole command: args without the program name, dir the
// working directory that patterns and printed paths are relative to.
func run(args []string, dir string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fanout-migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	showDiff := fs.Bool("diff", false, "print a unified diff of the change instead of writing the files")
	standalone := fs.Bool("standalone", false, "switch tools/cache to fanout's own informer package (no client-go types) even in a module that uses other client-go packages")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: fanout-migrate [-diff] [-standalone] [packages]   (for example ./...)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	mod, err := findModule(dir)
	if err != nil {
		fmt.Fprintln(stderr, "fanout-migrate:", err)
		return exitError
	}
	dirs, err := expandPatterns(dir, patterns)
	if err != nil {
		fmt.Fprintln(stderr, "fanout-migrate:", err)
		return exitError
	}
	pkgs := make([]*pkg, 0, len(dirs))
	for _, d := range dirs {
		p, err := loadPackage(d)
		if err != nil {
			fmt.Fprintln(stderr, "fanout-migrate:", err)
			return exitError
		}
		if p != nil {
			pkgs = append(pkgs, p)
		}
	}
	world := newWorld(mod, pkgs)
	rewrite := world.rewrite
	if !*standalone && usesClientGoBeyondCache(pkgs) {
		rewrite = world.rewriteTypeIdentical
	}

	var reports []report
	var changed []*file
	for _, p := range pkgs {
		for _, f := range p.files {
			reports = append(reports, rewrite(p, f)...)
			if f.out != nil {
				changed = append(changed, f)
			}
		}
	}

	needClientGo := false
	for _, f := range changed {
		rel := relPath(dir, f.path)
		if *showDiff {
			io.WriteString(stdout, unifiedDiff("a/"+filepath.ToSlash(rel), "b/"+filepath.ToSlash(rel), f.src, f.out))
		} else {
			if err := os.WriteFile(f.path, f.out, f.mode); err != nil {
				fmt.Fprintln(stderr, "fanout-migrate:", err)
				return exitError
			}
			fmt.Fprintf(stdout, "rewrote %s\n", filepath.ToSlash(rel))
		}
		needClientGo = needClientGo || f.importsClientGo
	}

	sort.SliceStable(reports, func(i, j int) bool {
		if reports[i].path != reports[j].path {
			return reports[i].path < reports[j].path
		}
		return reports[i].line < reports[j].line
	})
	for _, r := range reports {
		fmt.Fprintf(stderr, "%s:%d: %s\n", filepath.ToSlash(relPath(dir, r.path)), r.line, r.why)
	}
	if len(changed) > 0 && !*showDiff {
		fmt.Fprintf(stdout, "next: %s\n", goGetCommand(needClientGo))
	}
	if len(reports) > 0 {
		fmt.Fprintf(stderr, "fanout-migrate: %d place(s) need a change by hand\n", len(reports))
		return exitReported
	}
	return exitOK
}

// report is one place the tool left as it was.
type report struct {
	path string
	line int
	why  string
}

// goGetCommand is the command that adds the modules the new imports need,
// at this tool's own version when it was built from a tagged module.
func goGetCommand(clientGo bool) string {
	version := "latest"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == rootModule && strings.HasPrefix(bi.Main.Version, "v") {
		version = bi.Main.Version
	}
	mods := []string{rootModule + "@" + version}
	if clientGo {
		mods = append(mods, clientGoModule+"@"+version)
	}
	return "go get " + strings.Join(mods, " ") + " && go mod tidy"
}

func relPath(base, path string) string {
	if rel, err := filepath.Rel(base, path); err == nil {
		return rel
	}
	return path
}
