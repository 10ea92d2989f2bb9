package apidoc

// AsyncAPIFile is where the AsyncAPI document is kept, from the repository root.
const AsyncAPIFile = "configs/asyncapi.yaml"

// AsyncAPIYAML is the content of AsyncAPIFile.
func AsyncAPIYAML() ([]byte, error) {
	doc, err := AsyncAPI(DocumentVersion)
	if err != nil {
		return nil, err
	}
	return YAML(doc, GeneratedHeader)
}
