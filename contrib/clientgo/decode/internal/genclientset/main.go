// Command genclientset writes zz_clientset.go of package
// github.com/kfanout/fanout/contrib/clientgo/decode: for every typed group
// client of the linked client-go's kubernetes.Interface, a field, its
// construction over a lean REST client, and the method that returns it;
// for every resource client of those groups with a List, a wrapper whose
// List streams (decode's streamList).
//
// Run from the decode package directory with GOWORK=off (go generate
// does), so that it reads the lowest supported client-go:
//
//	GOWORK=off go run ./internal/genclientset
//	GOWORK=off go run ./internal/genclientset -list   # testdata/groups.txt too
//
// The Clientset covers the groups every supported release has (the list
// in testdata/groups.txt, which -list rewrites from each release's source,
// downloaded with `go mod download`); the others (a group a later release
// removed or added) are the embedded clientset's, decoded by client-go.
// Likewise the resources whose List streams are those every release has
// in the group (testdata/resources.txt); the others list as client-go's
// typed client does, through the lean decoder.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/client-go/kubernetes"
)

const (
	generatedFile = "zz_clientset.go"
	groupsFile    = "internal/genclientset/testdata/groups.txt"
	resourcesFile = "internal/genclientset/testdata/resources.txt"
	typedPrefix   = "k8s.io/client-go/kubernetes/typed/"
)

func main() {
	mkList := flag.Bool("list", false, "rewrite "+groupsFile+" from the source of each of -releases")
	releases := flag.String("releases", "v0.35.0 v0.36.0 v0.37.2", "the supported client-go releases, for -list")
	flag.Parse()
	var err error
	if *mkList {
		err = writeGroups(strings.Fields(*releases))
	}
	var src []byte
	if err == nil {
		src, err = generate(groupsFile, resourcesFile)
	}
	if err == nil {
		err = os.WriteFile(generatedFile, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genclientset:", err)
		os.Exit(1)
	}
}

// group is one typed group client of kubernetes.Interface.
type group struct {
	method string // AppsV1
	field  string // appsV1
	alias  string // appsv1
	path   string // k8s.io/client-go/kubernetes/typed/apps/v1
	iface  string // AppsV1Interface
	typ    reflect.Type
}

// resource is one resource client of a group whose List streams.
type resource struct {
	getter   string // Pods
	ns       bool   // the getter takes a namespace
	iface    string // PodInterface
	wrapper  string // leanCoreV1Pods
	listPkg  string // k8s.io/api/core/v1
	listType string // PodList
}

// getterRE finds the resource getters of a typed client package.
var getterRE = regexp.MustCompile(`(?m)^type (\w+)Getter interface`)

// writeGroups writes the typed client packages every release has, and
// their resource getters every release has.
func writeGroups(releases []string) error {
	var common, resources []string
	for i, r := range releases {
		out, err := exec.Command("go", "mod", "download", "-json", "k8s.io/client-go@"+r).Output()
		if err != nil {
			return fmt.Errorf("downloading client-go %s: %w", r, err)
		}
		var mod struct{ Dir string }
		if err := json.Unmarshal(out, &mod); err != nil {
			return err
		}
		dirs, err := filepath.Glob(filepath.Join(mod.Dir, "kubernetes", "typed", "*", "*"))
		if err != nil {
			return err
		}
		var have, getters []string
		for _, d := range dirs {
			if st, err := os.Stat(d); err != nil || !st.IsDir() {
				continue
			}
			rel, _ := filepath.Rel(filepath.Join(mod.Dir, "kubernetes", "typed"), d)
			path := typedPrefix + filepath.ToSlash(rel)
			have = append(have, path)
			files, err := filepath.Glob(filepath.Join(d, "*.go"))
			if err != nil {
				return err
			}
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				for _, m := range getterRE.FindAllSubmatch(src, -1) {
					getters = append(getters, path+" "+string(m[1]))
				}
			}
		}
		if i == 0 {
			common, resources = have, getters
			continue
		}
		common = slices.DeleteFunc(common, func(p string) bool { return !slices.Contains(have, p) })
		resources = slices.DeleteFunc(resources, func(p string) bool { return !slices.Contains(getters, p) })
	}
	sort.Strings(common)
	sort.Strings(resources)
	if err := os.WriteFile(resourcesFile, []byte(strings.Join(resources, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(groupsFile, []byte(strings.Join(common, "\n")+"\n"), 0o644)
}

// readResources reads the resource getters to stream, by package path.
func readResources(file string) (map[string][]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m := map[string][]string{}
	for l := range strings.Lines(string(b)) {
		if path, getter, ok := strings.Cut(strings.TrimSpace(l), " "); ok {
			m[path] = append(m[path], getter)
		}
	}
	return m, nil
}

// readGroups reads the list of typed client packages to cover.
func readGroups(file string) (map[string]bool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, l := range strings.Fields(string(b)) {
		m[l] = true
	}
	return m, nil
}

// groups lists the typed group clients of kubernetes.Interface whose
// packages are in cover.
func groups(cover map[string]bool) []group {
	const typed = typedPrefix
	t := reflect.TypeFor[kubernetes.Interface]()
	var gs []group
	for i := range t.NumMethod() {
		m := t.Method(i)
		if m.Type.NumIn() != 0 || m.Type.NumOut() != 1 {
			continue
		}
		out := m.Type.Out(0)
		if !strings.HasPrefix(out.PkgPath(), typed) || !cover[out.PkgPath()] {
			continue
		}
		gs = append(gs, group{
			method: m.Name,
			field:  strings.ToLower(m.Name[:1]) + m.Name[1:],
			alias:  strings.ReplaceAll(strings.TrimPrefix(out.PkgPath(), typed), "/", ""),
			path:   out.PkgPath(),
			iface:  out.Name(),
			typ:    out,
		})
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].method < gs[j].method })
	return gs
}

// resources lists the resource clients of g named in getters whose
// interface has client-go's List method.
func resources(g group, getters []string) []resource {
	var rs []resource
	for _, name := range getters {
		m, ok := g.typ.MethodByName(name)
		if !ok || m.Type.NumOut() != 1 || m.Type.NumIn() > 1 || m.Type.Out(0).Kind() != reflect.Interface {
			continue
		}
		ri := m.Type.Out(0)
		list, ok := ri.MethodByName("List")
		if !ok || list.Type.NumIn() != 2 || list.Type.NumOut() != 2 || list.Type.In(1).Name() != "ListOptions" ||
			list.Type.Out(0).Kind() != reflect.Pointer {
			continue
		}
		lt := list.Type.Out(0).Elem()
		rs = append(rs, resource{
			getter:   name,
			ns:       m.Type.NumIn() == 1,
			iface:    ri.Name(),
			wrapper:  "streaming" + g.method + name,
			listPkg:  lt.PkgPath(),
			listType: lt.Name(),
		})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].getter < rs[j].getter })
	return rs
}

// apiAlias is the import name of an API package: k8s.io/api/core/v1 is
// apicorev1.
func apiAlias(path string) string {
	return "api" + strings.NewReplacer("/", "", ".", "").Replace(strings.TrimPrefix(path, "k8s.io/api/"))
}

// generate returns the formatted source of zz_clientset.go, covering the
// groups listed in groupsFile and streaming the lists of the resources in
// resourcesFile.
func generate(groupsFile, resourcesFile string) ([]byte, error) {
	cover, err := readGroups(groupsFile)
	if err != nil {
		return nil, err
	}
	getters, err := readResources(resourcesFile)
	if err != nil {
		return nil, err
	}
	gs := groups(cover)
	res := map[string][]resource{}
	apis := map[string]bool{}
	for _, g := range gs {
		res[g.method] = resources(g, getters[g.path])
		for _, r := range res[g.method] {
			apis[r.listPkg] = true
		}
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/genclientset; DO NOT EDIT.\n\npackage decode\n\nimport (\n\t\"context\"\n\n")
	b.WriteString("\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/client-go/kubernetes\"\n\t\"k8s.io/client-go/rest\"\n\n")
	for _, p := range slices.Sorted(maps.Keys(apis)) {
		fmt.Fprintf(&b, "\t%s %q\n", apiAlias(p), p)
	}
	b.WriteString("\n")
	for _, g := range gs {
		fmt.Fprintf(&b, "\t%s %q\n", g.alias, g.path)
	}
	b.WriteString(")\n\n// leanGroups holds a Clientset's typed group clients.\ntype leanGroups struct {\n")
	for _, g := range gs {
		fmt.Fprintf(&b, "\t%s %s.%s\n", g.field, g.alias, g.iface)
	}
	b.WriteString("}\n\n// newLeanGroups builds every typed group client over the REST client\n// lean returns for the group's client in std; the first error lean\n// returns is the result's.\n")
	b.WriteString("func newLeanGroups(std *kubernetes.Clientset, lean func(rest.Interface) (*rest.RESTClient, error)) (g leanGroups, err error) {\n")
	b.WriteString("\trc := func(c rest.Interface) *rest.RESTClient {\n\t\tr, e := lean(c)\n\t\tif err == nil {\n\t\t\terr = e\n\t\t}\n\t\treturn r\n\t}\n")
	for _, g := range gs {
		if len(res[g.method]) > 0 {
			fmt.Fprintf(&b, "\tg.%s = streaming%s{%s.New(rc(std.%s().RESTClient()))}\n", g.field, g.method, g.alias, g.method)
		} else {
			fmt.Fprintf(&b, "\tg.%s = %s.New(rc(std.%s().RESTClient()))\n", g.field, g.alias, g.method)
		}
	}
	b.WriteString("\treturn g, err\n}\n")
	for _, g := range gs {
		fmt.Fprintf(&b, "\n// %s returns the %s client, decoding with fanout's decoder.\nfunc (c *Clientset) %s() %s.%s { return c.groups.%s }\n", g.method, g.method, g.method, g.alias, g.iface, g.field)
	}
	for _, g := range gs {
		rs := res[g.method]
		if len(rs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n// streaming%s is the %s client whose resource clients stream their lists.\ntype streaming%s struct{ %s.%s }\n", g.method, g.method, g.method, g.alias, g.iface)
		for _, r := range rs {
			param, arg := "", ""
			if r.ns {
				param, arg = "namespace string", "namespace"
			}
			fmt.Fprintf(&b, "\nfunc (g streaming%s) %s(%s) %s.%s {\n\treturn %s{g.%s.%s(%s)}\n}\n", g.method, r.getter, param, g.alias, r.iface, r.wrapper, g.iface, r.getter, arg)
			fmt.Fprintf(&b, "\ntype %s struct{ %s.%s }\n", r.wrapper, g.alias, r.iface)
			fmt.Fprintf(&b, "\nfunc (c %s) List(ctx context.Context, opts metav1.ListOptions) (*%s.%s, error) {\n\treturn streamList(ctx, opts, c.%s.List)\n}\n", r.wrapper, apiAlias(r.listPkg), r.listType, r.iface)
		}
	}
	return format.Source(b.Bytes())
}
