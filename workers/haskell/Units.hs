{-# LANGUAGE BangPatterns #-}

-- | spawn and ring (spec/wire.md) with forkIO threads: spawned threads count
-- themselves ready and wait on an MVar the spawner fills; the ring passes the
-- token through one MVar per thread.
module Units
  ( rssKb
  , spawnForkIO
  , ringForkIO
  ) where

import Control.Concurrent (forkIO, yield)
import Control.Concurrent.MVar
import Control.Exception (SomeException, evaluate, try)
import Control.Monad (forM, forM_, when)
import Data.IORef
import Data.Int (Int64)
import Data.List (isPrefixOf)
import GHC.Clock (getMonotonicTimeNSec)
import System.Mem (performMajorGC)

-- | VmRSS of this process in kB (0 when unreadable).
rssKb :: IO Int64
rssKb = do
  r <- try (readFile "/proc/self/status") :: IO (Either SomeException String)
  case r of
    Left _ -> return 0
    Right text -> do
      let found = [l | l <- lines text, "VmRSS:" `isPrefixOf` l]
      _ <- evaluate (length text)
      return $ case found of
        (l : _) -> case words (drop 6 l) of
          (kb : _) | [(v, "")] <- reads kb -> v
          _ -> 0
        [] -> 0

-- | A count that fills an MVar when it reaches its target.
data Latch = Latch (IORef Int) (MVar ())

newLatch :: IO Latch
newLatch = Latch <$> newIORef 0 <*> newEmptyMVar

arrive :: Int -> Latch -> IO ()
arrive target (Latch count full) = do
  now <- atomicModifyIORef' count (\c -> (c + 1, c + 1))
  when (now == target) (putMVar full ())

awaitLatch :: Latch -> IO ()
awaitLatch (Latch _ full) = readMVar full

latchCount :: Latch -> IO Int
latchCount (Latch count _) = readIORef count

-- | Creates n threads that wait: Right (ns until all are ready, RSS growth in
-- kB, threads that counted themselves ready), or Left (threads created, the
-- runtime's reason).
spawnForkIO :: Int -> IO (Either (Int, String) (Int64, Int64, Int))
spawnForkIO n = do
  ready <- newLatch
  ended <- newLatch
  gate <- newEmptyMVar
  performMajorGC
  m0 <- rssKb
  t0 <- getMonotonicTimeNSec
  made <- startAll ready ended gate 0
  case made of
    Left (k, why) -> do
      putMVar gate ()
      waitFor k ended
      return (Left (k, why))
    Right () -> do
      awaitLatch ready
      t1 <- getMonotonicTimeNSec
      m1 <- rssKb
      counted <- latchCount ready
      putMVar gate ()
      awaitLatch ended
      return (Right (fromIntegral (t1 - t0), m1 - m0, counted))
  where
    startAll ready ended gate !k
      | k == n = return (Right ())
      | otherwise = do
          r <- try (forkIO (arrive n ready >> readMVar gate >> arrive n ended))
          case r of
            Left e -> return (Left (k, show (e :: SomeException)))
            Right _ -> startAll ready ended gate (k + 1)
    -- After a failure only k threads exist: count them down by hand.
    waitFor k (Latch count _) = do
      let spin = do
            c <- readIORef count
            when (c < k) (yield >> spin)
      spin

-- | A ring of n threads passing one token m times round: (ns, hops).
ringForkIO :: Int -> Int -> IO (Int64, Int)
ringForkIO n m = do
  let lastHop = n * m
  boxes <- forM [1 .. n] (const newEmptyMVar)
  done <- newEmptyMVar
  ended <- newLatch
  let pairs = zip boxes (drop 1 boxes ++ take 1 boxes)
      unit inbox next = go (0 :: Int)
        where
          go !k
            | k == m = arrive n ended
            | otherwise = do
                v <- takeMVar inbox
                let !v' = v + 1
                if v' == lastHop
                  then putMVar done v' >> arrive n ended
                  else putMVar next v' >> go (k + 1)
  forM_ pairs (\(inbox, next) -> forkIO (unit inbox next))
  -- Start from a collected heap, as a fresh program does.
  performMajorGC
  t0 <- getMonotonicTimeNSec
  putMVar (head boxes) 0
  hops <- takeMVar done
  t1 <- getMonotonicTimeNSec
  awaitLatch ended
  return (fromIntegral (t1 - t0), hops)
