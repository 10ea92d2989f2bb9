// Package apidoc builds mqprobe's API documents from the JSON Schemas in
// configs (the single source of truth for commands and result events): the
// named schema
// components shared by the OpenAPI document of the HTTP API (built by
// internal/httpapi) and the AsyncAPI 3.0 document of the command bus and
// result channel (built here), and the YAML form in which both are kept in
// configs/. `make docs` runs tools/gendocs to write them; tests regenerate
// them in memory and fail when the files drift.
package apidoc
