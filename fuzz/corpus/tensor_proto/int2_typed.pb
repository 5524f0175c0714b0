*N±B
int2_typed