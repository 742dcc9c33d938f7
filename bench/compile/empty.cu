// An empty translation unit: the baseline of the compile-time benchmark.
int main() { return 0; }
