// Package lockstepv1 is the generated Go code of lockstep.v1's messages
// (proto/lockstep/v1/lockd.proto). Do not edit the .pb.go file: change the
// proto file and run lockd/scripts/generate.
package lockstepv1
