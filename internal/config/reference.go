package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ReferenceFile is where `make docs` writes ReferenceDocument, relative to
// the repository root.
const ReferenceFile = "docs/configuration.md"

// referenceIntro opens ReferenceDocument: how a configuration is chosen and
// overridden, before the generated table.
const referenceIntro = `<!-- Generated from internal/config by make docs (go run ./tools/gendocs): edit the config struct's tags, not this file. -->
# Configuration

Every subcommand reads one configuration: the file ` + "`--config FILE`" + ` (or
` + "`MQPROBE_CONFIG`" + `) names, over the built-in defaults of its ` + "`mode`" + `. Any key
` + "`a.b.c`" + ` is overridden by the variable ` + "`MQPROBE_A_B_C`" + ` (for example
` + "`MQPROBE_HTTP_ADDR=127.0.0.1:9090`" + `,
` + "`MQPROBE_IDEMPOTENCY_SQLITE_PATH=/var/lib/mqprobe/db`" + `). Unknown keys and
variables, and out-of-range values, stop start-up (exit 2) naming the key.

Ready files: ` + "`configs/embedded.yaml`" + ` (the defaults, commented),
` + "`configs/aws-local.yaml`" + ` (aws mode on the local emulators of ` + "`make dev-aws`" + `),
` + "`configs/aws.yaml`" + ` (aws mode on AWS with IBM MQ; see [deployment](deployment.md)).

` + "`mqprobe config print`" + ` shows the effective configuration (file, environment and
defaults: exactly what ` + "`mqprobe run`" + ` would use) with secrets redacted.

## Keys

`

// Reference renders every configuration key as a Markdown table: key,
// variable, type, default in embedded and in aws mode, description (secret
// keys are marked). It fails naming each key whose field has no desc tag.
func Reference() (string, error) {
	keys := Keys()
	if err := checkDescribed(keys); err != nil {
		return "", err
	}
	tags := defaultTags()
	embedded, unstableEmbedded := modeDefaults(ModeEmbedded)
	aws, unstableAWS := modeDefaults(ModeAWS)
	var errs []error
	var b strings.Builder
	b.WriteString("Generated from `internal/config` by `make docs`. `<name>` stands for a profile or tenant name, `[]` for a list entry " +
		"(set in the file only). Durations are written `30s`, `5m`, `24h`; lists in variables are comma-separated.\n\n")
	b.WriteString("| key | variable | type | default (embedded) | default (aws) | description |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, k := range keys {
		embeddedDefault, awsDefault := embedded[k.Key], aws[k.Key]
		unstable := unstableEmbedded[k.Key] || unstableAWS[k.Key]
		switch tag := tags[k.Key]; {
		case unstable && tag == "":
			errs = append(errs, fmt.Errorf("config: %s: default differs from run to run: describe it with a default tag", k.Key))
		case tag != "" && (unstable || embeddedDefault == awsDefault):
			// Not decided by the mode alone: the tag says what decides it.
			embeddedDefault, awsDefault = tag, tag
		}
		desc := k.Desc
		if k.Secret {
			desc += " (secret: redacted by `mqprobe config print`)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n",
			code(k.Key), code(k.Env), k.Type, code(embeddedDefault), code(awsDefault), cell(desc))
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return b.String(), nil
}

// ReferenceDocument is the whole of ReferenceFile: how the configuration
// is chosen, then Reference.
func ReferenceDocument() (string, error) {
	ref, err := Reference()
	if err != nil {
		return "", err
	}
	return referenceIntro + ref, nil
}

// checkDescribed names every key without a description.
func checkDescribed(keys []Key) error {
	var errs []error
	for _, k := range keys {
		if strings.TrimSpace(k.Desc) == "" {
			errs = append(errs, fmt.Errorf("config: %s: field has no desc tag", k.Key))
		}
	}
	return errors.Join(errs...)
}

// modeDefaults renders every key of the built-in configuration of mode, as
// Keys names them, and reports the keys whose value differs between two
// resolutions (a random suffix).
func modeDefaults(mode string) (values map[string]string, unstable map[string]bool) {
	values, again := resolvedValues(mode), resolvedValues(mode)
	unstable = map[string]bool{}
	for key, v := range values {
		if again[key] != v {
			unstable[key] = true
		}
	}
	return values, unstable
}

func resolvedValues(mode string) map[string]string {
	c := defaults()
	c.Mode = mode
	c.setDefaults()
	values := map[string]string{}
	walk(reflect.ValueOf(c).Elem(), "", "", true, func(l leaf) { values[l.key] = formatValue(l.val) })
	return values
}

// defaultTags maps each key to its field's default tag, where it has one.
func defaultTags() map[string]string {
	tags := map[string]string{}
	walk(reflect.ValueOf(defaults()).Elem(), "", "", true, func(l leaf) {
		if tag := l.field.Tag.Get("default"); tag != "" {
			tags[l.key] = tag
		}
	})
	return tags
}

// code renders a value as inline code, "—" when empty.
func code(s string) string {
	if s == "" {
		return "—"
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

// cell escapes what Markdown would take for a column break or an HTML tag.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", `\<`).Replace(s)
}
