package main

func runBench(args []string) error  { return nil }
func runStress(args []string) error { return nil }
