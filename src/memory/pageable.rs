//! Pageable host memory of the program (`[T]`, `Vec<T>`, `[T; N]`) as copy
//! operands of every context.

use crate::ffi::access::{RawDest, RawSource};
use crate::ffi::{Mem, MemMut};

use super::kinds::{DeviceRepr, HostMemory, Memory, MemoryMut, OnHost};

impl<T: DeviceRepr> RawSource for [T] {
    fn raw(&self) -> Mem<'_> {
        Mem::from_slice(self)
    }
}
impl<T: DeviceRepr> RawDest for [T] {
    fn raw_mut(&mut self) -> MemMut<'_> {
        MemMut::from_slice(self)
    }
}
impl<'id, T: DeviceRepr> Memory<'id> for [T] {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
}
impl<'id, T: DeviceRepr> MemoryMut<'id> for [T] {}
impl<'id, T: DeviceRepr> HostMemory<'id> for [T] {}

impl<T: DeviceRepr> RawSource for Vec<T> {
    fn raw(&self) -> Mem<'_> {
        Mem::from_slice(self)
    }
}
impl<T: DeviceRepr> RawDest for Vec<T> {
    fn raw_mut(&mut self) -> MemMut<'_> {
        MemMut::from_slice(self)
    }
}
impl<'id, T: DeviceRepr> Memory<'id> for Vec<T> {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        Vec::len(self)
    }
}
impl<'id, T: DeviceRepr> MemoryMut<'id> for Vec<T> {}
impl<'id, T: DeviceRepr> HostMemory<'id> for Vec<T> {}

impl<T: DeviceRepr, const N: usize> RawSource for [T; N] {
    fn raw(&self) -> Mem<'_> {
        Mem::from_slice(self)
    }
}
impl<T: DeviceRepr, const N: usize> RawDest for [T; N] {
    fn raw_mut(&mut self) -> MemMut<'_> {
        MemMut::from_slice(self)
    }
}
impl<'id, T: DeviceRepr, const N: usize> Memory<'id> for [T; N] {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        N
    }
}
impl<'id, T: DeviceRepr, const N: usize> MemoryMut<'id> for [T; N] {}
impl<'id, T: DeviceRepr, const N: usize> HostMemory<'id> for [T; N] {}
