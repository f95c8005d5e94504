package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// demoLabel marks the demo's ConfigMaps; the informer selects on it.
const demoLabel = "fanout.demo/overload"

func objectName(i int) string { return fmt.Sprintf("cm-%05d", i) }

// createObjects creates namespace ns (if missing) and ConfigMaps
// cm-00000... up to objects, each with payload bytes of data, using workers
// concurrent requests. Objects that already exist are kept.
func createObjects(ctx context.Context, cs kubernetes.Interface, ns string, objects, payload, workers int) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	data := strings.Repeat("x", payload)
	return forEach(ctx, objects, workers, func(i int) error {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: objectName(i), Labels: map[string]string{demoLabel: "true"}},
			Data:       map[string]string{"value": "0:" + data},
		}
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s/%s: %w", ns, cm.Name, err)
		}
		return nil
	})
}

// forEach calls f(0) ... f(n-1) from workers goroutines and returns the
// first error; it stops handing out indexes after an error or once ctx is
// done.
func forEach(ctx context.Context, n, workers int, f func(i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idx := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range idx {
				if err := f(i); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case idx <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(idx)
	wg.Wait()
	return context.Cause(ctx)
}
