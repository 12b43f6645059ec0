int Twice(int a);
