-- | @ffi@ (spec/wire.md) for toll's Haskell worker: reps calls into
-- workers/ffi/toll_ffi.c, compiled into the worker by GHC, through
-- @foreign import ccall@ twice over: @safe@ (the RTS saves the thread's
-- state and lets go of its capability around the call, so the call may block
-- or call back) and @unsafe@ (a plain C call from Haskell code).
module Ffi (bindings, ffiCalls) where

import Data.Bits ((.&.))
import Data.Word (Word64, Word8)
import Foreign.C.Types (CSize (..))
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Ptr (Ptr)
import Foreign.Storable (pokeByteOff)
import GHC.Clock (getMonotonicTimeNSec)

foreign import ccall safe "toll_ffi_null" nullSafe :: IO ()
foreign import ccall unsafe "toll_ffi_null" nullUnsafe :: IO ()
foreign import ccall safe "toll_ffi_sum" sumSafe :: Ptr Word8 -> CSize -> IO Word64
foreign import ccall unsafe "toll_ffi_sum" sumUnsafe :: Ptr Word8 -> CSize -> IO Word64

-- | The bindings; both are compiled in, so always callable.
bindings :: [String]
bindings = ["safe", "unsafe"]

-- | @reps@ calls through the binding with an n-byte buffer of the pattern
-- (byte i = (seed + 131·i) mod 256): (ns, last sum), or why not.
ffiCalls :: String -> Int -> Int -> Int -> IO (Either String (Word64, Word64))
ffiCalls binding n reps seed = case binding of
  "safe" -> Right <$> calls nullSafe sumSafe
  "unsafe" -> Right <$> calls nullUnsafe sumUnsafe
  other -> return (Left ("no binding " ++ other ++ ": the haskell worker has safe, unsafe"))
  where
    calls _null total = allocaBytes (max n 1) $ \p -> do
      mapM_ (\i -> pokeByteOff p i (fromIntegral ((seed + 131 * i) .&. 255) :: Word8)) [0 .. n - 1]
      t0 <- getMonotonicTimeNSec
      -- One call shape at every n, 0 included (a sum of no bytes).
      s <- sumLoop total p (fromIntegral n) reps 0
      t1 <- getMonotonicTimeNSec
      return (t1 - t0, s)

-- The loop does nothing but call.
sumLoop :: (Ptr Word8 -> CSize -> IO Word64) -> Ptr Word8 -> CSize -> Int -> Word64 -> IO Word64
sumLoop _ _ _ 0 s = return s
sumLoop f p n r _ = f p n >>= sumLoop f p n (r - 1)
