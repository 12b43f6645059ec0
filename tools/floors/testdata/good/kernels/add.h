int Add(int a, int b);
