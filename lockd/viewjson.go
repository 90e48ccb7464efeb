package lockd

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// The view's JSON: GET ViewPath+"api/{panel}" answers, for the caller, the
// very value the panel's fragment is rendered from (snapshot), encoded:
// the same authentication, grant and prefixes, the same reads. panel is
// fleet, hot, sessions, deadlocks or charts, or all for every panel at
// once. viewpanels.go documents the fields; lockctl view prints them.
//
// A refusal is Connect's error shape, {"code": ..., "message": ...}, with
// status 401 (no credential), 403 (a credential refused, or no
// "web_view" grant) or 404 (no such panel).

// apiPanels are the names the JSON takes, as the error for another says.
const apiPanels = "fleet, hot, sessions, deadlocks, charts or all"

// api answers one panel's data, or all of them, to pr.
func (v *view) api(w http.ResponseWriter, r *http.Request, pr *Principal) {
	name := r.PathValue("name")
	if name != "all" && !panelNames[name] {
		writeViewJSON(w, http.StatusNotFound, viewError{Code: "not_found", Message: fmt.Sprintf("no panel %q: ask for %s", name, apiPanels)})
		return
	}
	writeViewJSON(w, http.StatusOK, v.snapshot(r.Context(), pr, name))
}

// viewError is a refusal of the JSON, in Connect's error shape.
type viewError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// refuseJSON is the JSON's refuser (authorize).
func refuseJSON(w http.ResponseWriter, status int, msg string) {
	code := "permission_denied"
	if status == http.StatusUnauthorized {
		code = "unauthenticated"
	}
	writeViewJSON(w, status, viewError{Code: code, Message: msg})
}

func writeViewJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
