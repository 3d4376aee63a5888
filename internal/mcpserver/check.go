package mcpserver

// addCheck registers check_prompt_files once prompt-file checking is a
// package of its own (internal/check).
func (s *Server) addCheck() {}
