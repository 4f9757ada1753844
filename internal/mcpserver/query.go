package mcpserver

// addQueryTools registers search, timeline and recent_context.
func (s *Server) addQueryTools() {}

// addContextResources registers mem://context/auto and mem://context/session/{id}.
func (s *Server) addContextResources() {}

// toolNames lists every tool the server offers.
var toolNames = []string{"get_observations", "save_observation"}
