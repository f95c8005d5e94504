package demo

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writeTable prints the runs side by side, one column per run.
func writeTable(w io.Writer, results []*Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(r *Result) string) {
		cells := []string{label}
		for _, r := range results {
			if r.Skipped != "" {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, cell(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	header := []string{""}
	for _, r := range results {
		header = append(header, r.Title)
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	row("events produced", func(r *Result) string { return fmt.Sprint(r.Produced) })
	for i, name := range HandlerNames {
		row(name+" delivered / max backlog", func(r *Result) string {
			h := r.Handlers[i]
			return fmt.Sprintf("%d / %d", h.Delivered, h.MaxBacklog)
		})
	}
	if reportsCoalesced(results) {
		for _, h := range []int{Slow, Stalled} {
			row(HandlerNames[h]+" notifications coalesced", func(r *Result) string {
				if r.Handlers[h].Coalesced < 0 {
					return "n/a"
				}
				return fmt.Sprint(r.Handlers[h].Coalesced)
			})
		}
	}
	row("stalled: objects current after drain", func(r *Result) string {
		return fmt.Sprintf("%d of %d", r.Current, r.Objects)
	})
	row("peak heap", func(r *Result) string { return fmt.Sprintf("%.1f MiB", mib(r.PeakHeap)) })
	row("heap at end of load (after GC)", func(r *Result) string { return fmt.Sprintf("%.1f MiB", mib(r.EndHeap)) })
	row("heap after stop (after GC)", func(r *Result) string { return fmt.Sprintf("%.1f MiB", mib(r.FinalHeap)) })
	tw.Flush()
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(w, "%s: skipped: %s\n", r.Title, r.Skipped)
		}
	}
}

// reportsCoalesced reports whether a run's library can coalesce.
func reportsCoalesced(results []*Result) bool {
	for _, r := range results {
		if r.Skipped == "" && r.Handlers[Stalled].Coalesced >= 0 {
			return true
		}
	}
	return false
}
