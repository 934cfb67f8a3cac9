/** The sections of `sandnet bench` (apart from bench/index.ts so that the command line names them without loading the bench). */
export const BENCH_SECTIONS = ["engine", "large", "storage", "http", "load", "cluster", "startup", "advance", "memory", "restart", "swarm"] as const
export type BenchSection = (typeof BENCH_SECTIONS)[number]
