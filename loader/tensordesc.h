/* tensordesc.h - host-side tensor descriptors: the checks of a
 * tile_tensordesc before a launch.
 *
 * A kernel parameter declared `tensordesc<fp16[64, 64]>` is compiled as a
 * base pointer, rank int32 shapes and rank int64 strides; its generated
 * launch function takes one tile_tensordesc, checks it here and passes the
 * fields. The rules are those Triton's TensorDescriptor asserts on the host
 * (rank, 16-byte aligned base, a contiguous last dimension, other strides
 * multiples of 16 bytes) plus what the kernel was compiled for (rank, block
 * shape) and the int32 range of the shape the kernel's bounds use. The
 * kernel relies on the alignment (its vector widths assume it), so a
 * descriptor that breaks a rule never reaches the driver. */

TILEDEF tile_status tile_tensordesc_check(const tile_tensordesc *d, const char *param, int rank, int elem_bytes,
					  const int32_t *block_shape)
{
	int i;
	if (!param)
		param = "?";
	if (!d || !block_shape || rank < 1 || rank > TILE_TENSORDESC_MAX_RANK || elem_bytes < 1 || elem_bytes > 16)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tensor descriptor %s: NULL descriptor or bad call", param);
	if (d->rank != rank)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tensor descriptor %s: rank %d, the kernel takes rank %d",
				  param, (int)d->rank, rank);
	if (d->base % 16)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tensor descriptor %s: base 0x%llx is not 16-byte aligned",
				  param, (unsigned long long)d->base);
	for (i = 0; i < rank; i++) {
		if (d->block_shape[i] != block_shape[i])
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "tensor descriptor %s: block_shape[%d] is %d, the kernel was compiled for %d", param, i,
					  (int)d->block_shape[i], (int)block_shape[i]);
		if (d->shape[i] < 0 || d->shape[i] > INT32_MAX)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tensor descriptor %s: shape[%d] = %lld is outside [0, 2^31)",
					  param, i, (long long)d->shape[i]);
		if (i == rank - 1 && d->strides[i] != 1)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "tensor descriptor %s: strides[%d] is %lld; the last dimension must be contiguous (1)", param,
					  i, (long long)d->strides[i]);
		if (i < rank - 1 && (d->strides[i] < 0 || d->strides[i] > INT64_MAX / 16 || (d->strides[i] * elem_bytes) % 16))
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "tensor descriptor %s: strides[%d] = %lld elements of %d bytes is not a multiple of 16 bytes",
					  param, i, (long long)d->strides[i], elem_bytes);
	}
	return TILE_SUCCESS;
}
