package bind

import (
	"maps"
	"slices"

	"github.com/chnative/chnative/internal/sqltext"
)

// RenderParameters renders the WithParameters values raw for the {name:Type} placeholders of
// body, as the text of server-side query parameters, over bound (the parameters bound from
// sql.Named arguments, which win). A name body does not type is sent as a String.
func RenderParameters(bound map[string]string, raw map[string]any, body string) (map[string]string, error) {
	types := map[string]string{}
	for _, p := range sqltext.Placeholders(body) {
		if p.Kind == '{' {
			types[p.Name] = p.Type
		}
	}
	out := maps.Clone(bound)
	if out == nil {
		out = make(map[string]string, len(raw))
	}
	for _, n := range slices.Sorted(maps.Keys(raw)) {
		if _, ok := out[n]; ok {
			continue
		}
		typ, ok := types[n]
		if !ok {
			typ = "String"
		}
		s, err := ParameterValue(raw[n], typ)
		if err != nil {
			return nil, Errorf("parameter %s: %v", n, err)
		}
		out[n] = s
	}
	return out, nil
}
