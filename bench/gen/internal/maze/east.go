package maze

// east is one turn of a walk: the next turn by the lowest digit of path, or the end of it.
//
//go:noinline
func (m *Maze) east(path, levels int) {
	if levels == 0 {
		m.park()
		return
	}
	turns[path%4](m, path/4, levels-1)
}
