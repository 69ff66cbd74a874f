package config

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// decodeHook is the decode hook viper's Unmarshal runs on every value: it
// turns what the file (YAML's types), the environment (strings) or a flag
// gives into a setting's type, strictly, and leaves the structs around
// the settings to mapstructure.
func decodeHook(_, to reflect.Type, data any) (any, error) {
	switch to {
	case durationType, stringsType, pairsType:
	default:
		switch to.Kind() {
		case reflect.Bool, reflect.Int, reflect.Float64, reflect.String:
		default:
			return data, nil
		}
	}
	return convert(to, data)
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	stringsType  = reflect.TypeFor[[]string]()
	pairsType    = reflect.TypeFor[Pairs]()
)

// Pairs is a list whose entries hold a colon (audit.allow's SKILL:RULE):
// one string, the environment's form, is split at commas and spaces only.
type Pairs []string

// convert turns a raw value into a setting's type: a duration counts
// milliseconds (its key ends in _ms); a list is a YAML list, or "a,b" or
// "a:b" in one string; a boolean is true/false, on/off, yes/no or 1/0. The
// error quotes the value.
func convert(to reflect.Type, raw any) (any, error) {
	switch to {
	case durationType:
		n, err := toInt(raw)
		if err != nil {
			return nil, fmt.Errorf("%s is not a whole number of milliseconds", quote(raw))
		}
		return time.Duration(n) * time.Millisecond, nil
	case stringsType:
		return toStrings(raw)
	case pairsType:
		if s, ok := raw.(string); ok {
			var out Pairs // nil for none, as toStrings
			for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
				out = append(out, p)
			}
			return out, nil
		}
		l, err := toStrings(raw)
		return Pairs(l), err
	}
	switch to.Kind() {
	case reflect.Bool:
		return toBool(raw)
	case reflect.Int:
		n, err := toInt(raw)
		if err != nil {
			return nil, err
		}
		return int(n), nil
	case reflect.Float64:
		return toFloat(raw)
	case reflect.String:
		return toString(raw)
	}
	return nil, fmt.Errorf("no setting is a %s", to)
}

// quote is a raw value for an error message: a string quoted.
func quote(raw any) string {
	if s, ok := raw.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(raw)
}

// toBool reads the boolean spellings, case-insensitive and trimmed.
func toBool(raw any) (bool, error) {
	switch v := raw.(type) {
	case bool:
		return v, nil
	case int:
		if v == 0 || v == 1 {
			return v == 1, nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "on", "yes", "1":
			return true, nil
		case "false", "off", "no", "0":
			return false, nil
		}
	}
	return false, fmt.Errorf("%s is not a boolean (true/false, on/off, yes/no, 1/0)", quote(raw))
}

// toInt reads a whole number: an integer, a float without a fraction, or
// a decimal string.
func toInt(raw any) (int64, error) {
	switch v := raw.(type) {
	case int:
		return int64(v), nil
	case int64:
		return v, nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v), nil
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n == int64(int(n)) {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s is not a whole number", quote(raw))
}

// toFloat reads a finite number.
func toFloat(raw any) (float64, error) {
	f, ok := 0.0, false
	switch v := raw.(type) {
	case int:
		f, ok = float64(v), true
	case int64:
		f, ok = float64(v), true
	case float64:
		f, ok = v, true
	case string:
		var err error
		f, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
		ok = err == nil
	}
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s is not a number", quote(raw))
	}
	return f, nil
}

// toString reads a string; a YAML number or boolean is written out.
func toString(raw any) (string, error) {
	switch v := raw.(type) {
	case string:
		return v, nil
	case int, int64, float64, bool:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("%s is not a single value", quote(raw))
}

// toStrings reads a list: a YAML list of single values, or one string
// split at commas and colons (the environment's "a,b" or "a:b").
func toStrings(raw any) ([]string, error) {
	switch v := raw.(type) {
	case string:
		return splitList(v), nil
	case []string:
		return append([]string(nil), v...), nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, err := toString(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", quote(raw), err)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is not a list", quote(raw))
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ':' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
