package deref

// Of returns *p, or the zero value of T when p is nil.
func Of[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}
