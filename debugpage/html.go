package debugpage

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"time"
)

// pageData is what the HTML template renders.
type pageData struct {
	Title          string
	RefreshSeconds int // 0: no refresh
	Snapshot
}

// writeHTML renders snap as the HTML page.
func writeHTML(w http.ResponseWriter, opts Options, snap Snapshot) {
	data := pageData{Title: opts.Title, Snapshot: snap}
	if opts.Refresh > 0 {
		data.RefreshSeconds = max(int(math.Round(opts.Refresh.Seconds())), 1)
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, data); err != nil {
		http.Error(w, "debugpage: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes()) // the client went away
}

// age formats seconds as a short duration ("0s", "1.5s", "2m3s").
func age(seconds float64) string {
	d := time.Duration(seconds * float64(time.Second))
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// rate formats a per-second rate.
func rate(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f/s", v)
	}
	return fmt.Sprintf("%.1f/s", v)
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"age":  age,
	"rate": rate,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
{{if .RefreshSeconds}}<meta http-equiv="refresh" content="{{.RefreshSeconds}}">
{{end}}<title>{{.Title}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; margin: 0 0 .2em; }
h2 { font-size: 1.15em; margin: 1.4em 0 .3em; }
.meta { color: #666; margin: 0 0 .6em; }
table { border-collapse: collapse; }
th, td { padding: .25em .7em; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; font-weight: 600; }
td.name, th.name { text-align: left; }
dl.informer { display: grid; grid-template-columns: max-content max-content max-content max-content; gap: .1em 1em; margin: 0 0 .6em; }
dl.informer dt { color: #666; } dl.informer dd { margin: 0; }
tr.behind td { background: #fdecea; }
.mark { display: inline-block; width: .7em; height: .7em; border-radius: 50%; margin-right: .4em; background: #2e7d32; }
tr.behind .mark { background: #c62828; }
.status-behind { color: #c62828; font-weight: 600; }
svg.spark polyline { fill: none; stroke: #1565c0; stroke-width: 1.5; }
tr.behind svg.spark polyline { stroke: #c62828; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">at <span id="time">{{.Time.Format "2006-01-02 15:04:05.000 MST"}}</span>; a handler is <span class="status-behind">behind</span> when its oldest pending notification waits longer than {{age .BehindAfterSeconds}}; backlog sampled every {{age .SampleIntervalSeconds}}{{if .RefreshSeconds}}; reloads every {{.RefreshSeconds}}s{{end}}; <a href="?format=json">JSON</a></p>
{{if not .Informers}}<p>No informers registered.</p>{{end}}
{{range .Informers}}
<section class="informer" data-informer="{{.Name}}">
<h2>{{.Name}}</h2>
<dl class="informer">
<dt>resource</dt><dd class="resource">{{.Resource}}</dd>
<dt>synced</dt><dd class="synced">{{.Synced}}</dd>
{{with .NotSyncedReason}}<dt>not synced</dt><dd class="not-synced">{{.}}</dd>{{end}}
<dt>store size</dt><dd class="store-size">{{.StoreSize}}</dd>
<dt>queue depth</dt><dd class="queue-depth">{{if .QueueBusy}}busy{{else if lt .QueueDepth 0}}-{{else}}{{.QueueDepth}}{{end}}</dd>
<dt>last resource version</dt><dd class="resource-version">{{.LastResourceVersion}}</dd>
<dt>watch restarts</dt><dd class="watch-restarts">{{.WatchRestarts}}</dd>
<dt>index refusals</dt><dd class="index-refusals">{{.IndexRefusals}}{{with .LastIndexRefusal}}, last {{.Key}} by index {{.Index}} at {{.Time.Format "15:04:05.000"}}: {{.Error}}{{end}}</dd>
</dl>
<table>
<thead><tr><th class="name">handler</th><th>engine</th><th>overflow</th><th>pending</th><th>high water</th><th>delivered</th><th>delivered rate</th><th>coalesced</th><th>panics</th><th>oldest pending</th><th class="name">backlog</th></tr></thead>
<tbody>
{{range .Handlers}}<tr class="handler{{if .Behind}} behind{{end}}" data-handler="{{.Name}}" data-behind="{{.Behind}}">
<td class="name"><span class="mark" title="{{if .Behind}}behind{{else}}keeping up{{end}}"></span>{{.Name}}{{if .Behind}} <span class="status-behind">behind</span>{{end}}{{with .NotSyncedReason}}<br><small class="not-synced">{{.}}</small>{{end}}</td>
<td>{{.Engine}}{{if gt .Workers 1}} &times;{{.Workers}}{{end}}</td>
<td>{{.Overflow}}{{if .MaxPending}} {{.MaxPending}}{{end}}</td>
<td class="pending">{{.Pending}}</td>
<td>{{.HighWater}}</td>
<td>{{.Delivered}}</td>
<td>{{rate .DeliveredPerSecond}}</td>
<td>{{.Coalesced}}</td>
<td>{{.Panics}}</td>
<td class="oldest">{{age .OldestPendingAgeSeconds}}</td>
<td class="name"><svg class="spark" width="160" height="28" viewBox="0 0 160 28" role="img" aria-label="backlog, max {{.Sparkline.Max}}"><polyline points="{{.Sparkline.Points}}"/></svg> <small>max {{.Sparkline.Max}}</small></td>
</tr>
{{end}}</tbody>
</table>
</section>
{{end}}
</body>
</html>
`))
