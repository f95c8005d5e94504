package demo

import (
	"encoding/xml"
	"errors"
	"io"
)

// ChartSummary reads an SVG chart written by Run and returns its root
// element's name and how many polylines it draws (one per run and panel).
// It fails if the chart is not well-formed XML.
func ChartSummary(r io.Reader) (root string, polylines int, err error) {
	dec := xml.NewDecoder(r)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return root, polylines, nil
		}
		if err != nil {
			return root, polylines, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "polyline" {
				polylines++
			}
		}
	}
}
