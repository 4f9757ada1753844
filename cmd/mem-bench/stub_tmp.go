package main

func runStress(args []string) error { return nil }
