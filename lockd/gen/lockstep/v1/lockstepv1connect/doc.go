// Package lockstepv1connect is the generated Connect client and handler
// interface of lockstep.v1.LockService. Do not edit the .connect.go file:
// change the proto file and run lockd/scripts/generate.
package lockstepv1connect
