package httpapi

import "github.com/mqprobe/mqprobe/internal/apidoc"

// OpenAPIFile is where the OpenAPI document is kept, from the repository root.
const OpenAPIFile = "configs/openapi.yaml"

// OpenAPIYAML is the content of OpenAPIFile: the document /openapi.json
// serves, as YAML, at apidoc.DocumentVersion.
func OpenAPIYAML() ([]byte, error) {
	doc, err := OpenAPI(apidoc.DocumentVersion)
	if err != nil {
		return nil, err
	}
	return apidoc.YAML(doc, apidoc.GeneratedHeader)
}
