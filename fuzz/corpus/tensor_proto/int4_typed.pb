*˜!vB
int4_typed