// Package replicaquery asks every replica and takes the first answer.
package replicaquery

import "fmt"

// Ask queries n replicas; every answer is sent on the returned channel.
func Ask(key string, n int) <-chan string {
	out := make(chan string)
	for i := 0; i < n; i++ {
		go func(i int) {
			out <- fmt.Sprintf("%s@replica%d", key, i) //stuck:answer
		}(i)
	}
	return out
}

// First returns the first answer and leaves the others unread (the bug).
func First(key string, n int) string {
	return <-Ask(key, n)
}
